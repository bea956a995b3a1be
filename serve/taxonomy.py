"""The 25 intents: the contract between data, router, prompts and evaluation (DESIGN.md section 5)."""

from __future__ import annotations

from typing import Literal

Domain = Literal["telecom", "ecommerce"]
DOMAINS: tuple[Domain, ...] = ("telecom", "ecommerce")

SHARED_INTENTS = (
    "account_access",
    "account_manage",
    "billing_inquiry",
    "billing_dispute",
    "payment_issue",
    "pay_bill_topup",
    "cancel_service",
    "complaint_feedback",
    "contact_human",
    "app_website_issue",
    "greeting_chitchat",
    "out_of_scope",
)
TELECOM_INTENTS = (
    "balance_usage_inquiry",
    "plan_change",
    "network_fault",
    "roaming_international",
    "sim_device",
)
ECOMMERCE_INTENTS = (
    "order_tracking",
    "delivery_problem",
    "order_cancel",
    "order_modify",
    "return_exchange",
    "refund",
    "promo_coupon_pricing",
    "product_presales_inquiry",
)
INTENTS: tuple[str, ...] = SHARED_INTENTS + TELECOM_INTENTS + ECOMMERCE_INTENTS
INTENT_INDEX = {name: i for i, name in enumerate(INTENTS)}


def domain_intents(domain: Domain) -> tuple[str, ...]:
    """Intents that make sense for a domain (shared ones included)."""
    return SHARED_INTENTS + (TELECOM_INTENTS if domain == "telecom" else ECOMMERCE_INTENTS)
