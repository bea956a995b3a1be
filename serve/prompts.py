"""The prompt library: prompts/manifest.yaml and prompts/<domain>/<lang>.yaml, validated at start-up and
rendered in a sandboxed Jinja2 environment.

Templates are data written by the team. Customer text is never a template: the message and the history
go to the model as chat messages, untouched, and customer context values enter templates only as
variables (sanitised to one line each), so `{{ config }}` or "ignore your instructions" in either
changes nothing in the rendered system prompt.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from jinja2 import TemplateError

from serve.prompt_files import (
    BankReply,
    Manifest,
    PromptConfigError,
    PromptFile,
    ReplyBankFile,
    RouteRule,
    load_model,
)
from serve.resources import data_dir
from serve.sandbox import compiled
from serve.taxonomy import DOMAINS, INTENTS

LANGS = ("en", "zh")
PROMPTS_DIR = data_dir("prompts")  # the checkout's prompts/, or the wheel's copy (serve/resources.py)

_CONTEXT_KEY = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_CONTEXT_FIELDS = 24
MAX_CONTEXT_VALUE_CHARS = 200


# `{% if given.x is defined %}A{% else %}B{% endif %}`: A and B say the same thing for a customer who did or
# did not give x. The reply bank indexes only B, so wording a reply for what the customer gave moves no
# selection; the library check makes sure no other shape of branch on `given` is left for the index to read.
_GIVEN_BRANCH = re.compile(
    r"\{%-?\s*if given\.\w+ is defined\s*-?%\}.*?\{%-?\s*else\s*-?%\}(.*?)\{%-?\s*endif\s*-?%\}", re.S
)


def without_given_branches(template: str) -> str:
    """A bank reply's template as the index reads it: where it has a branch for a detail the customer gave,
    only the text for a customer who gave none."""
    return _GIVEN_BRANCH.sub(r"\1", template)


def sanitize_context(context: dict[str, Any] | None) -> dict[str, str]:
    """Customer facts as one-line strings; odd keys dropped, long values cut. Values stay data: they are
    never parsed as templates, and a newline cannot start a fake 'System:' line."""
    clean: dict[str, str] = {}
    for key, value in (context or {}).items():
        if len(clean) >= MAX_CONTEXT_FIELDS or not isinstance(key, str) or not _CONTEXT_KEY.match(key):
            continue
        if isinstance(value, bool):
            text = "yes" if value else "no"
        elif isinstance(value, int | float | str):
            text = str(value)
        else:
            continue
        text = " ".join(text.split())[:MAX_CONTEXT_VALUE_CHARS]
        if text:
            clean[key] = text
    return clean


class PromptLibrary:
    def __init__(
        self,
        manifest: Manifest,
        files: dict[tuple[str, str], PromptFile],
        banks: dict[tuple[str, str], ReplyBankFile] | None = None,
    ) -> None:
        self.manifest = manifest
        self.files = files
        self.banks = banks or {}
        self._rules = self._route_table()

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, root: Path = PROMPTS_DIR) -> PromptLibrary:
        problems: list[str] = []
        manifest = load_model(root / "manifest.yaml", Manifest, problems)
        files: dict[tuple[str, str], PromptFile] = {}
        if manifest is not None:
            for domain in DOMAINS:
                for lang in LANGS:
                    rel = manifest.files.get(domain, {}).get(lang)
                    if rel is None:
                        problems.append(f"manifest.yaml: files.{domain}.{lang} is missing")
                        continue
                    loaded = load_model(root / rel, PromptFile, problems)
                    if loaded is not None:
                        if (loaded.domain, loaded.lang) != (domain, lang):
                            problems.append(
                                f"{rel}: declares {loaded.domain}/{loaded.lang}, listed as {domain}/{lang}"
                            )
                        files[(domain, lang)] = loaded
        banks: dict[tuple[str, str], ReplyBankFile] = {}
        for domain, by_lang in (manifest.replies if manifest is not None else {}).items():
            for lang, rel in by_lang.items():
                bank = load_model(root / rel, ReplyBankFile, problems)
                if bank is not None:
                    if (bank.domain, bank.lang) != (domain, lang):
                        problems.append(
                            f"{rel}: declares {bank.domain}/{bank.lang}, listed as {domain}/{lang}"
                        )
                    banks[(domain, lang)] = bank
        if problems:
            raise PromptConfigError("invalid prompt library:\n  " + "\n  ".join(problems))
        assert manifest is not None
        library = cls(manifest, files, banks)
        library.validate()
        return library

    def validate(self) -> None:
        problems: list[str] = []
        for name in self.manifest.routes:
            if name not in INTENTS:
                problems.append(f"manifest.yaml: routes.{name}: unknown intent")
        for i, o in enumerate(self.manifest.overrides):
            if o.intent not in INTENTS:
                problems.append(f"manifest.yaml: overrides[{i}].intent: unknown intent {o.intent!r}")
        for (domain, lang), pf in self.files.items():
            where = f"{domain}/{lang}.yaml"
            missing = [i for i in INTENTS if i not in pf.intents]
            extra = [i for i in pf.intents if i not in INTENTS]
            if missing:
                problems.append(f"{where}: intents missing: {', '.join(missing)}")
            if extra:
                problems.append(f"{where}: unknown intents: {', '.join(extra)}")
            names_missing = [i for i in INTENTS if i not in pf.intent_names]
            if names_missing:
                problems.append(f"{where}: intent_names missing: {', '.join(names_missing)}")
            for intent in INTENTS:
                rule = self._rules.get((domain, intent, lang))
                entry = pf.intents.get(intent)
                if rule and rule.route == "canned" and entry is not None and not entry.canned:
                    problems.append(
                        f"{where}: intents.{intent}.canned is required (the manifest routes it to canned)"
                    )
            for field, template in self._templates_of(pf):
                try:
                    self._template(template)
                except TemplateError as exc:
                    problems.append(f"{where}: {field}: template error: {exc}")
            for intent, entry in pf.intents.items():  # canned text is sent verbatim: no template syntax
                for name, text in (("canned", entry.canned), ("canned_given", entry.canned_given)):
                    if text and ("{{" in text or "{%" in text):
                        problems.append(
                            f"{where}: intents.{intent}.{name} contains template syntax; canned replies "
                            "are sent verbatim"
                        )
            # every template must render with an empty context and with a full one
            for field, template in self._templates_of(pf):
                for context in (
                    {},
                    {"name": "A", "plan": "B", "balance": "1", "order_id": "C", "order_status": "D"},
                ):
                    try:
                        self._render(template, pf, context, intent="greeting_chitchat", options=["x", "y"])
                    except TemplateError as exc:
                        problems.append(
                            f"{where}: {field}: does not render with context {sorted(context)}: {exc}"
                        )
                        break
        problems += self._bank_problems()
        if problems:
            raise PromptConfigError("invalid prompt library:\n  " + "\n  ".join(problems))

    def _bank_problems(self) -> list[str]:
        problems: list[str] = []
        for (domain, lang), bank in self.banks.items():
            pf = self.files.get((domain, lang))
            seen: set[str] = set()
            for i, r in enumerate(bank.replies):
                where = f"{self.manifest.replies[domain][lang]}: replies[{i}] (id {r.id})"
                if r.id in seen:
                    problems.append(f"{where}: duplicate id")
                seen.add(r.id)
                if r.intent not in INTENTS:
                    problems.append(f"{where}: unknown intent {r.intent!r}")
                if pf is None:
                    continue
                for context, given in (
                    ({}, {}),
                    (
                        {"name": "A", "plan": "B", "balance": "1", "order_id": "C", "order_status": "D"},
                        {"order_id": "E", "phone": "F", "postcode": "G", "place": "H"},
                    ),
                ):
                    try:
                        self._render(r.reply, pf, context, intent=r.intent, given=given)
                    except TemplateError as exc:
                        problems.append(
                            f"{where}: reply does not render with context {sorted(context)}: {exc}"
                        )
                        break
                # the else text must be plain and nothing on `given` left over, or the index reads markup
                nested = any("{%" in m.group(1) for m in _GIVEN_BRANCH.finditer(r.reply))
                if nested or "given." in without_given_branches(r.reply):
                    problems.append(
                        f"{where}: a branch on a given detail must be "
                        "{% if given.x is defined %}...{% else %}...{% endif %} with no `if` inside its else"
                    )
        return problems

    def _route_table(self) -> dict[tuple[str, str, str], RouteRule]:
        table: dict[tuple[str, str, str], RouteRule] = {}
        for domain in DOMAINS:
            for intent in INTENTS:
                for lang in LANGS:
                    route = self.manifest.routes.get(intent, self.manifest.default_route)
                    table[(domain, intent, lang)] = RouteRule(
                        route, "manifest:intent" if intent in self.manifest.routes else "manifest:default"
                    )
        for o in self.manifest.overrides:
            for domain in DOMAINS if o.domain == "*" else (o.domain,):
                for lang in LANGS if o.lang == "*" else (o.lang,):
                    table[(domain, o.intent, lang)] = RouteRule(o.route, o.reason or "manifest:override")
        return table

    @staticmethod
    def _templates_of(pf: PromptFile) -> list[tuple[str, str]]:
        out = [
            ("system", pf.system),
            ("clarify", pf.clarify),
            ("clarify_open", pf.clarify_open),
            ("general", pf.general),
            ("handoff", pf.handoff),
        ]
        out += [
            (f"acts.{name}", text) for name, text in pf.acts.model_dump(exclude={"reference_labels"}).items()
        ]
        for intent, entry in pf.intents.items():
            out.append((f"intents.{intent}.reply", entry.reply))
            out.append((f"intents.{intent}.guidance", entry.guidance))
            if entry.clarify:
                out.append((f"intents.{intent}.clarify", entry.clarify))
            if entry.lead:
                out.append((f"intents.{intent}.lead", entry.lead))
        return out

    # --------------------------------------------------------------- rendering
    def rule(self, domain: str, intent: str, lang: str) -> RouteRule:
        return self._rules[(domain, intent, lang)]

    def file(self, domain: str, lang: str) -> PromptFile:
        return self.files[(domain, lang)]

    def system_prompt(self, domain: str, lang: str, intent: str, context: dict[str, Any] | None) -> str:
        pf = self.file(domain, lang)
        guidance = self._render(pf.intents[intent].guidance, pf, sanitize_context(context), intent=intent)
        return self._render(pf.system, pf, sanitize_context(context), intent=intent, guidance=guidance)

    def template_reply(self, domain: str, lang: str, intent: str, context: dict[str, Any] | None) -> str:
        pf = self.file(domain, lang)
        return self._render(pf.intents[intent].reply, pf, sanitize_context(context), intent=intent)

    def lead(self, domain: str, lang: str, intent: str, context: dict[str, Any] | None) -> str:
        """The opening of a generated reply: the facts from `context` that answer `intent`, or ""."""
        source = self.file(domain, lang).intents[intent].lead
        if not source or not context:
            return ""
        return self._render(source, self.file(domain, lang), sanitize_context(context), intent=intent)

    def canned_reply(self, domain: str, lang: str, intent: str, given: dict[str, str] | None = None) -> str:
        """The reviewed reply of a sensitive intent, verbatim; its `canned_given` text when the customer has
        already given the detail it would ask for (`given`, serve/acts.given_references)."""
        entry = self.file(domain, lang).intents[intent]
        if entry.canned is None:
            raise PromptConfigError(f"{domain}/{lang}.yaml: intents.{intent} has no canned reply")
        key = "phone" if domain == "telecom" else "order_id"
        if entry.canned_given and given and (key in given or "private" in given):
            return entry.canned_given
        return entry.canned

    def clarify_question(
        self, domain: str, lang: str, intent: str, options: list[str], context: dict[str, Any] | None
    ) -> str:
        pf = self.file(domain, lang)
        names = [pf.intent_names.get(o, o) for o in options]
        own = pf.intents[intent].clarify if intent in pf.intents else None
        template = own or (pf.clarify if len(options) >= 2 else pf.clarify_open)
        return self._render(template, pf, sanitize_context(context), intent=intent, options=names)

    def bank(self, domain: str, lang: str) -> list[BankReply]:
        bank = self.banks.get((domain, lang))
        return list(bank.replies) if bank is not None else []

    def bank_reply(
        self,
        domain: str,
        lang: str,
        reply: BankReply,
        context: dict[str, Any] | None,
        given: dict[str, str] | None = None,
    ) -> str:
        """A bank reply for this customer; `given`: what they already wrote (serve/acts.given_references: an
        order or phone number, a named place), so the reply does not ask for it again."""
        pf = self.file(domain, lang)
        # The customer's own order or phone number stands in for the account's where the request has none: the
        # bank's "send me the order number" branches then use it instead of asking again. Only the number is
        # taken, never a status or any other account fact.
        typed = {key: given[key] for key in ("order_id", "phone") if given and key in given}
        text = self._render(
            reply.reply,
            pf,
            sanitize_context({**typed, **(context or {})}),
            intent=reply.intent,
            given=sanitize_context(given),
        )
        return " ".join(text.split())

    def act_reply(
        self,
        domain: str,
        lang: str,
        name: str,
        topic_intent: str | None,
        reference: str = "",
        reference_kind: str = "order",
    ) -> str:
        """The reply to a conversation act; `topic_intent` is the open topic (None: no topic yet)."""
        pf = self.file(domain, lang)
        topic = (
            ""
            if topic_intent in (None, "greeting_chitchat", "out_of_scope")
            else pf.intent_names.get(topic_intent or "", "")
        )
        label = pf.acts.reference_labels.get(reference_kind, "")  # type: ignore[call-overload]
        return self._render(
            getattr(pf.acts, name),
            pf,
            {},
            intent=topic_intent or "",
            topic=topic,
            reference=reference,
            reference_label=label,
        )

    def general_reply(
        self, domain: str, lang: str, context: dict[str, Any] | None, given: dict[str, str] | None = None
    ) -> str:
        """The acknowledgement that asks for the one missing detail; `given`: what the customer already wrote
        (serve/acts.given_references), so it is not asked for again."""
        pf = self.file(domain, lang)
        text = self._render(pf.general, pf, sanitize_context(context), given=sanitize_context(given))
        return " ".join(text.split()) if lang == "en" else text

    def handoff_message(
        self, domain: str, lang: str, context: dict[str, Any] | None, reason: str = "customer_requested_human"
    ) -> str:
        """`reason`: the route's reason (the template may say why, e.g. for `follow_up_question`)."""
        pf = self.file(domain, lang)
        return self._render(pf.handoff, pf, sanitize_context(context), intent="contact_human", reason=reason)

    def _template(self, source: str) -> Any:
        return compiled(source)

    def _render(self, source: str, pf: PromptFile, context: dict[str, str], **extra: Any) -> str:
        variables = {
            "company": pf.company,
            "context": context,
            "intent": extra.pop("intent", ""),
            "guidance": extra.pop("guidance", ""),
            "options": extra.pop("options", []),
            "topic": extra.pop("topic", ""),
            "reference": extra.pop("reference", ""),
            "reference_label": extra.pop("reference_label", ""),
            "given": extra.pop("given", {}),
            "reason": extra.pop("reason", ""),  # the route's reason (the hand-off says why)
            **extra,
        }
        return self._template(source).render(**variables).strip()


def main() -> int:
    """`python -m serve.prompts [DIR]`: validate a prompt library and print its route table summary."""
    import sys

    root = Path(sys.argv[1]) if len(sys.argv) > 1 else PROMPTS_DIR
    try:
        library = PromptLibrary.load(root)
    except PromptConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    routes: dict[str, int] = {}
    for rule in library._rules.values():
        routes[rule.route] = routes.get(rule.route, 0) + 1
    print(f"prompt library OK: {len(library.files)} files, routes {routes}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
