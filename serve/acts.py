"""Conversation acts: messages that do something in the conversation rather than ask about a topic.

- an acknowledgement or thanks ("ok", "thanks", "嗯", "好的", "对的", "👍") gets a one-line acknowledgement
  that keeps the open topic, never the greeting menu and never a refusal;
- a message that is only a reference (an order, tracking or phone number, with or without a label such as
  "order #" or "订单号：") is taken as one: joined to the open topic, or asked about when there is none;
- a message with nothing in it but @mentions, links or a photo placeholder (a customer tagging the brand on
  social media), or only a greeting ("good day", "您好"), is a greeting: "how can I help?";
- a short message that says the problem is solved ("it's working now", "问题已解决") is `resolved`, and a
  short remark that ends in thanks or a wish, without a question ("希望改改吧", "...谢谢"), is `feedback`:
  both close the turn with thanks, never with a request for an order or phone number.
`given_references` finds the numbers a customer has already written, so a reply does not ask for them again.
Nudges ("any update?", "还在吗") live in serve/followup.py: they keep the conversation's intent.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

ActKind = Literal["acknowledgement", "thanks", "reference", "greeting", "resolved", "feedback"]
ReferenceKind = Literal["order", "tracking", "phone"]

_STRIP = re.compile(r"[\s!！.。,，~～…?？:：;；'\"“”‘’()（）\[\]【】*_-]+")
_ACK = frozenset(
    "ok|okay|okey|k|kk|okk|okie|alright|allright|sure|fine|cool|great|perfect|noted|understood|gotit|got it|"
    "yes|yep|yeah|yup|right|correct|thatsright|willdo|soundsgood|nice|good|okgreat|okcool|okay then|okthen|"
    "嗯|嗯嗯|嗯嗯嗯|哦|哦哦|噢|喔|好|好的|好滴|好哒|好吧|好嘞|好了|行|行吧|可以|可以的|收到|收到了|明白|明白了|知道了|"
    "了解|了解了|对|对的|对对|对啊|是的|是|是啊|没错|嗯好的|嗯好|哦好的|嗯嗯好的|好的好的|嗯对|ok的|好的呢|好哒呢".replace(
        " ", ""
    ).split("|")
)
_THANKS = frozenset(
    "thanks|thank you|thankyou|thx|ty|tq|cheers|many thanks|thanks a lot|thanks so much|thank you so much|"
    "ok thanks|ok thank you|okay thanks|okay thank you|great thanks|perfect thanks|thanks again|"
    "appreciate it|谢谢|谢谢你|谢谢您|谢谢啦|谢谢了|多谢|多谢了|感谢|非常感谢|谢了|好的谢谢|好的谢谢你|"
    "好的谢谢您|嗯谢谢|嗯嗯谢谢|"
    "ok谢谢|谢谢亲|辛苦了|辛苦啦|谢谢客服|麻烦了|麻烦你了".replace(" ", "").split("|")
)
# A greeting and nothing else. Not the router's `greeting_chitchat`: without a model for the language, that
# reading sent Chinese complaints and questions the greeting menu; these words alone are never a topic.
_GREETINGS = frozenset(
    "hi|hello|hey|hiya|hithere|hellothere|heythere|hihi|goodday|gudday|goodmorning|goodafternoon|goodevening|"
    "morning|evening|你好|您好|你好呀|您好呀|你们好|大家好|hi你好|hello你好|早上好|上午好|下午好|晚上好".split(
        "|"
    )
)
_POSITIVE_EMOJI = frozenset("👍👌🙏😊🙂😀😄👏✅❤💯🤝")
_EMOJI_EXTRAS = re.compile("[\ufe0f\u200d\U0001f3fb-\U0001f3ff]")  # variation selector, joiner, skin tones

# Labels that may stand around a reference; what is left must be the reference itself.
_LABELS = re.compile(
    r"(?i)\b(?:my|the|it'?s|its|is|here|order|orders|order\s*(?:no|number|num|id)|ref(?:erence)?|tracking|"
    r"tracking\s*(?:no|number|id)|parcel|package|phone|mobile|number|no|num|account|acct)\b|"
    r"订单号码|订单编号|订单号|订单|运单号|快递单号|物流单号|单号|快递号|手机号码|手机号|电话号码|电话|号码|账号|我的|是|这个|"
    r"[#＃:：。.,，!！?？=\s]"
)
_REFERENCE = re.compile(r"^[A-Za-z]{0,4}[-\d]*\d[-\dA-Za-z]*$")
_TRACKING_WORDS = re.compile(r"(?i)tracking|parcel|package|运单|快递单|物流单|快递号")
_PHONE_WORDS = re.compile(r"(?i)phone|mobile|手机|电话")
_ORDER_WORDS = re.compile(r"(?i)order|订单")


# Social-media wrapping that carries no request: @handles, links, "pic.twitter..." and Weibo markers.
_WRAPPING = re.compile(
    r"(?:对\s*@[^\s:：]+\s*说[:：]?)|(?:@[\w\-.\u4e00-\u9fff]+)|(?:https?://\S+)|(?:pic\.\S+)|O网页链接|图片评论|(?:我在:\S*)"
)


def strip_wrapping(text: str) -> str:
    """The message without @mentions, links and platform markers (what the customer actually wrote)."""
    return " ".join(_WRAPPING.sub(" ", text).split())


@dataclass(frozen=True, slots=True)
class Act:
    kind: ActKind
    reference: str | None = None
    reference_kind: ReferenceKind | None = None


def _key(text: str) -> str:
    return _STRIP.sub("", unicodedata.normalize("NFKC", text).lower())


def detect_act(message: str) -> Act | None:
    """The act a message performs, or None for a message about a topic."""
    stripped = strip_wrapping(message)
    if not stripped and message.strip():
        return Act("greeting")
    if not stripped or len(stripped) > 60:
        return None
    full = _key(stripped)
    key = _EMOJI_EXTRAS.sub("", "".join(ch for ch in full if ch not in _POSITIVE_EMOJI))
    if key in _THANKS:
        return Act("thanks")
    if key in _ACK or (not key and full):  # words of assent, or positive emoji alone
        return Act("acknowledgement")
    if key in _GREETINGS:
        return Act("greeting")
    return _reference(stripped) or _closing(stripped)


# "Solved" and "thanks" at the end of a short message without a question; a negation ("not fixed", "没解决",
# "还是不行") or a fault word keeps it a message about the problem.
_RESOLVED = re.compile(
    r"(?i)(?:问题)?(?:已经|已)解决|解决了|搞定了|弄好了|修好了|恢复正常|能用了|可以用了|好了[,，.。!！]*谢谢|"
    r"\b(?:sorted|fixed|resolved|working)\s+now\b|\ball\s+sorted\b|\bproblem\s+solved\b|"
    r"\bissue\s+(?:is\s+)?resolved\b|\bback\s+(?:up|on)\s+now\b|\bit'?s\s+working\b"
)
_NEGATION = re.compile(r"(?i)没|未|不|别|还是|仍|又|\bnot\b|n't\b|\bno\b|\bstill\b|\bagain\b|\bnever\b")
_ENDS_THANKS = re.compile(
    r"(?i)(?:谢谢|感谢|多谢|thanks|thank\s+you|cheers)[\s!！.。~～]*(?:您|你|啦|了|亲)?[\s!！.。~～]*$"
)
_WISH = re.compile(r"^(?:希望|建议)\S{0,10}吧?[!！.。~～]*$")
# a request or a number in the message: it asks for something to be done, it does not close the turn
_REQUEST = re.compile(
    r"(?i)请|麻烦|尽快|帮我|能否|可否|要求|退款|\d{5,}|\bplease\b|\bcan you\b|\bcould you\b|\bwant\b|"
    r"\bneed\b|\brefund\b"
)


def _closing(message: str) -> Act | None:
    text = unicodedata.normalize("NFKC", message).strip()
    if len(text) > 80 or "?" in text:  # NFKC turns the full-width question mark into "?"
        return None
    if _RESOLVED.search(text) and not _NEGATION.search(_RESOLVED.sub("", text)):
        return Act("resolved")
    if (
        (_ENDS_THANKS.search(text) or _WISH.match(text))
        and not _NEGATION.search(text)
        and not _REQUEST.search(text)
    ):
        return Act("feedback")
    return None


# Numbers a customer gives in a longer message: a labelled order/tracking number, a Chinese mobile number, or
# a long code of letters and digits. Only what they wrote: it is never taken as a looked-up account fact.
_GIVEN_ORDER = re.compile(
    r"(?i)(?:order|订单|单号|运单|快递单)[^\dA-Za-z]{0,8}([A-Za-z]{0,4}\d[\dA-Za-z-]{5,})|"
    r"\b([A-Za-z]{1,4}\d{8,})\b|(?<![\d])(\d{10,20})(?![\d])"
)
_GIVEN_PHONE = re.compile(
    r"(?<!\d)(1[3-9]\d{9})(?!\d)|(?i:(?:phone|mobile|number|手机|电话|号码)\D{0,6}(\+?\d[\d ]{7,15}\d))"
)
# A postcode: a UK one as customers write it (capitals), or after the word postcode/zip, or a US ZIP after a
# state's code ("Warren RI? 02885"). A bare five-digit number is not one: it could be anything.
_US_STATES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY "
    "NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
).split()
_UK_POSTCODE = r"[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}"
_GIVEN_POSTCODE = re.compile(
    rf"\b({_UK_POSTCODE})\b"
    rf"|(?i:\b(?:zip(?:\s?code)?|post\s?code)\W{{0,3}}(?:is\s+)?(\d{{5}}|{_UK_POSTCODE}))\b"
    rf"|(?:(?<=[a-z]\s)|(?<=[a-z],\s))(?:{'|'.join(_US_STATES)})\W{{0,3}}(\d{{5}})(?:-\d{{4}})?\b"
)
_PRIVATE = re.compile(r"(?i)私信|\bDM(?:'?d|s)?\b|direct message|private message")
# A named place ("at Torquay Nicholson Road Store", "in South Ruislip"): a reply about a store does not ask
# which store it was. Capitalised words after "at", "in", "near" or "area of"; a trailing store word goes.
_PLACE = re.compile(
    r"\b(?:at|in|near|area of)\s+(?:the\s+|your\s+)?([A-Z][\w'’&-]*(?:\s+(?:[Uu]pon|on|le|[A-Z][\w'’&-]*))*)"
)
_STORE_WORDS = re.compile(r"(?:\s+(?:Store|Branch|Shop|Superstore|Supermarket|Local|Extra|Express))+$")
_NOT_PLACES = frozenset(
    "I My The This That It Christmas Easter Monday Tuesday Wednesday Thursday Friday Saturday Sunday January "
    "February March April May June July August September October November December English Hindi".split()
)


def given_references(texts: list[str]) -> dict[str, str]:
    """What the customer already wrote in `texts` (their own turns): `order_id`, `phone`, `postcode`, `place`
    (a named place, English), and `private` when they say they sent the details in a private message. The
    last mention of each wins."""
    given: dict[str, str] = {}
    for text in texts:
        normalized = unicodedata.normalize("NFKC", strip_wrapping(text))
        for match in _GIVEN_PHONE.finditer(normalized):
            given["phone"] = (match.group(1) or match.group(2)).replace(" ", "")
        for match in _GIVEN_ORDER.finditer(normalized):
            token = next(g for g in match.groups() if g)
            if token != given.get("phone"):
                given["order_id"] = token
        for match in _GIVEN_POSTCODE.finditer(normalized):
            given["postcode"] = next(g for g in match.groups() if g).upper()
        if _PRIVATE.search(normalized):
            given["private"] = "yes"
        for match in _PLACE.finditer(normalized):
            place = _STORE_WORDS.sub("", match.group(1)).strip(" .'’")
            if place and place.split()[0] not in _NOT_PLACES and not any(ch.isdigit() for ch in place):
                given["place"] = place
    return given


def _reference(message: str) -> Act | None:
    normalized = unicodedata.normalize("NFKC", message)
    rest = _LABELS.sub(" ", normalized).split()
    if len(rest) != 1 or not _REFERENCE.match(rest[0]):
        return None
    token = rest[0]
    if sum(ch.isdigit() for ch in token) < 4:
        return None
    if _TRACKING_WORDS.search(normalized):
        kind: ReferenceKind = "tracking"
    elif _PHONE_WORDS.search(normalized):
        kind = "phone"
    elif _ORDER_WORDS.search(normalized):
        kind = "order"
    else:
        digits = token.replace("-", "")
        # a bare Chinese mobile number (11 digits starting with 1) or a 10-digit one reads as a phone number
        looks_phone = digits.isdigit() and (len(digits) == 11 and digits.startswith("1") or len(digits) == 10)
        kind = "phone" if looks_phone else "order"
    return Act("reference", token, kind)
