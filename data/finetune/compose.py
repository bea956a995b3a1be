"""Compose the fine-tuning conversations from the hand-written pools (deterministic).

    python data/finetune/compose.py            # writes train_en.jsonl and train_zh.jsonl next to this file
    python data/finetune/compose.py --check    # validates them and data/eval/replies_llm.jsonl

Each pools_<domain>_<lang>.py holds, per llm-route intent, hand-written customer messages, reply cores that
state only facts from that intent's guidance (prompts/<domain>/<lang>.yaml) or {placeholders} filled from the
conversation's context, fact-free openers/closers, hand-written follow-up chains, and HAND: fully hand-written
conversations, which are written out first and untouched. rules_<domain>_<lang>.py hold RULES: hand-written
conversations on the reply rules (ask for the one missing detail, state no fact the context lacks, fixed-line
faults), written out next, on top of each intent's target. The composer adds composed conversations until each
intent reaches its target, never writing the same reply twice. See README.md.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the pools folder free of __pycache__
sys.path.insert(0, HERE)

SEED = 20261203
TARGET = {("telecom", "en"): 940, ("ecommerce", "en"): 940, ("telecom", "zh"): 730, ("ecommerce", "zh"): 730}
FIELD_ORDER = [
    "name",
    "plan",
    "balance",
    "data_left",
    "bill_amount",
    "due_date",
    "order_id",
    "order_status",
    "tracking_number",
    "delivery_eta",
    "item",
]
APOLOGY = ("I'm sorry", "Sorry", "Unfortunately", "很抱歉", "抱歉", "非常抱歉")
PH = re.compile(r"\{(\w+)\}")
# intents whose replies carry no numbers, usable as an earlier, different topic in a multi-turn conversation
PRIOR_OK = [
    "app_website_issue",
    "roaming_international",
    "account_manage",
    "payment_issue",
    "promo_coupon_pricing",
    "order_modify",
    "return_exchange",
    "product_presales_inquiry",
    "delivery_problem",
    "plan_change",
]


def _dates(rng, lang):
    m, d = rng.choice([(12, rng.randint(1, 31)), (1, rng.randint(1, 31)), (11, rng.randint(20, 30))])
    y = 2027 if m == 1 else 2026
    if lang == "zh" and rng.random() < 0.5:
        return f"{m}月{d}日"
    if lang == "en" and rng.random() < 0.3:
        return ["", "January", "", "", "", "", "", "", "", "", "", "November", "December"][m] + f" {d}"
    return f"{y}-{m:02d}-{d:02d}"


def _money(rng, lang, lo, hi, sym):
    v = rng.randint(lo * 100, hi * 100) / 100
    if lang == "zh" and rng.random() < 0.3:
        return f"{v:.2f}元"
    return f"{sym}{v:.2f}"


def _data(rng, lang):
    if rng.random() < 0.3:
        v = f"{rng.randint(50, 990)} MB"
    else:
        v = f"{rng.randint(1, 45) / (10 if rng.random() < 0.6 else 1):g} GB"
    return v.replace(" ", "") if lang == "zh" and rng.random() < 0.6 else v


VALUES = {
    ("telecom", "en"): dict(
        name=[
            "Priya",
            "Tom",
            "Aisha",
            "Daniel",
            "Mei",
            "Carlos",
            "Sophie",
            "Liam",
            "Fatima",
            "Jonas",
            "Grace",
            "Omar",
            "Hannah",
            "Raj",
            "Elena",
            "Marcus",
        ],
        plan=[
            "Essential 10GB",
            "Unlimited Plus",
            "Flex 5GB",
            "Family Share 50GB",
            "Prepaid Smart 15GB",
            "Go 2GB",
            "Unlimited Max",
            "Student 30GB",
            "Basic 5GB",
            "SIM Only 25GB",
        ],
        balance=lambda r: _money(r, "en", 0, 60, "$"),
        data_left=lambda r: _data(r, "en"),
        bill_amount=lambda r: _money(r, "en", 15, 140, "$"),
        due_date=lambda r: _dates(r, "en"),
        order_id=lambda r: f"EM-{r.randint(40000, 79999)}",
        tracking_number=lambda r: r.choice(
            [
                f"1Z{r.randint(100000, 999999)}X{r.randint(10, 99)}",
                f"JD0{r.randint(10**10, 10**11 - 1)}",
                f"UP{r.randint(10**9, 10**10 - 1)}",
            ]
        ),
        delivery_eta=lambda r: _dates(r, "en"),
        item=[
            "Pixel 9 128GB",
            "Galaxy A56",
            "iPhone 16 256GB",
            "USB-C fast charger",
            "wireless earbuds",
            "Moto G85",
            "clear phone case",
            "Galaxy Tab S10",
        ],
        status={
            "pending": ["Pending"],
            "shipped": ["Shipped", "In transit", "Out for delivery"],
            "delivered": ["Delivered"],
        },
    ),
    ("ecommerce", "en"): dict(
        name=[
            "Emma",
            "James",
            "Olivia",
            "Noah",
            "Chloe",
            "Ben",
            "Zara",
            "Lucas",
            "Maya",
            "Ethan",
            "Ruby",
            "Samir",
            "Alice",
            "Leo",
            "Nina",
            "Theo",
        ],
        plan=["Plus Monthly", "Plus Annual", "Premium Monthly", "Premium Annual", "Free Delivery Pass"],
        balance=lambda r: _money(r, "en", 0, 200, "$"),
        bill_amount=lambda r: _money(r, "en", 8, 400, "$"),
        order_id=lambda r: f"#W{r.randint(1000000, 9999999)}",
        tracking_number=lambda r: r.choice(
            [
                f"1Z999AA1{r.randint(10**9, 10**10 - 1)}",
                f"9400{r.randint(10**11, 10**12 - 1)}",
                f"TBA{r.randint(10**10, 10**11 - 1)}",
            ]
        ),
        delivery_eta=lambda r: _dates(r, "en"),
        due_date=lambda r: _dates(r, "en"),
        item=[
            "Nordic Oak Desk",
            "merino wool scarf",
            "running shoes",
            "ceramic mug set",
            "linen duvet cover",
            "Bluetooth speaker",
            "denim jacket",
            "stand mixer",
            "yoga mat",
            "leather backpack",
        ],
        status={
            "pending": ["Pending"],
            "shipped": ["Shipped", "In transit", "Out for delivery"],
            "delivered": ["Delivered"],
        },
    ),
    ("telecom", "zh"): dict(
        name=[
            "王先生",
            "李女士",
            "张先生",
            "陈女士",
            "刘先生",
            "赵女士",
            "小周",
            "孙先生",
            "黄女士",
            "吴先生",
            "林女士",
            "郑先生",
        ],
        plan=[
            "畅享58元套餐",
            "5G智享129元套餐",
            "畅聊39元套餐",
            "流量王99元套餐",
            "家庭融合199元套餐",
            "校园19元套餐",
            "预付费畅玩卡",
            "5G畅享169元套餐",
        ],
        balance=lambda r: _money(r, "zh", 0, 80, "¥"),
        data_left=lambda r: _data(r, "zh"),
        bill_amount=lambda r: _money(r, "zh", 19, 260, "¥"),
        due_date=lambda r: _dates(r, "zh"),
        order_id=lambda r: f"SC2026{r.randint(1101, 1203):04d}{r.randint(100, 999)}",
        tracking_number=lambda r: r.choice(
            [
                f"SF{r.randint(10**11, 10**12 - 1)}",
                f"YT{r.randint(10**11, 10**12 - 1)}",
                f"JD{r.randint(10**11, 10**12 - 1)}",
            ]
        ),
        delivery_eta=lambda r: _dates(r, "zh"),
        item=[
            "华为Mate 70",
            "小米15 256GB",
            "iPhone 16 128GB",
            "65W快充充电器",
            "无线蓝牙耳机",
            "荣耀平板9",
            "手机保护壳",
            "OPPO Find X8",
        ],
        status={"pending": ["待发货"], "shipped": ["已发货", "运输中", "派送中"], "delivered": ["已签收"]},
    ),
    ("ecommerce", "zh"): dict(
        name=[
            "王先生",
            "李女士",
            "张小姐",
            "陈先生",
            "刘女士",
            "周先生",
            "杨小姐",
            "何先生",
            "许女士",
            "马先生",
            "高女士",
            "罗先生",
        ],
        plan=["月度会员", "年度会员", "季度会员", "免运费年卡", "超级会员连续包月"],
        balance=lambda r: _money(r, "zh", 0, 500, "¥"),
        bill_amount=lambda r: _money(r, "zh", 9, 2000, "¥"),
        order_id=lambda r: f"DD{r.randint(10**9, 10**10 - 1)}",
        tracking_number=lambda r: r.choice(
            [
                f"SF{r.randint(10**11, 10**12 - 1)}",
                f"ZTO{r.randint(10**11, 10**12 - 1)}",
                f"YD{r.randint(10**10, 10**11 - 1)}",
                f"JT{r.randint(10**11, 10**12 - 1)}",
            ]
        ),
        delivery_eta=lambda r: _dates(r, "zh"),
        due_date=lambda r: _dates(r, "zh"),
        item=[
            "北欧实木书桌",
            "纯棉T恤",
            "羊毛围巾",
            "陶瓷马克杯套装",
            "蓝牙音箱",
            "羽绒服",
            "空气炸锅",
            "瑜伽垫",
            "真皮双肩包",
            "四件套床品",
        ],
        status={"pending": ["待发货"], "shipped": ["已发货", "运输中", "派送中"], "delivered": ["已签收"]},
    ),
}


def nsent(text):
    return len([x for x in re.split(r"(?<=[.!?])\s+(?=[A-Z\"])|(?<=[。！？])", text.strip()) if x.strip()])


class Composer:
    def __init__(self, domain, lang, rng, used=None):
        self.domain, self.lang, self.rng = domain, lang, rng
        self.P = __import__(f"pools_{domain}_{lang}")
        self.V = VALUES[(domain, lang)]
        self.sep = " " if lang == "en" else ""
        self.used: set[str] = used if used is not None else set()
        self.msg_i: dict = {}
        self.noprefix = False
        self.kinds: dict = {"hand": len(getattr(self.P, "HAND", []))}

    # ---- values and text helpers
    def val(self, field, spec=None, status=None):
        if spec and spec.get("need_vals", {}).get(field):
            return self.rng.choice(spec["need_vals"][field])
        if field == "order_status":
            groups = self.V["status"]
            pool = sum(groups.values(), []) if status in (None, "any") else groups[status]
            return self.rng.choice(pool)
        v = self.V[field]
        return v(self.rng) if callable(v) else self.rng.choice(v)

    def ctx(self, fields, spec=None, status=None, noise=()):
        c = {}
        for f in fields:
            c[f] = self.val(f, spec, status)
        if status and "order_status" not in c:
            c["order_status"] = self.val("order_status", spec, status)
        if status and "order_id" not in c:
            c["order_id"] = self.val("order_id")
        for f in noise:
            if f not in c and self.rng.random() < (0.3 if f == "name" else 0.25):
                c[f] = self.val(f)
        return {k: c[k] for k in FIELD_ORDER if k in c}

    def pick_msg(self, key, msgs):
        i = self.msg_i.get(key, self.rng.randrange(len(msgs)))
        self.msg_i[key] = i + 1
        return msgs[i % len(msgs)]

    def vary(self, msg):
        r = self.rng
        if self.lang == "en":
            pre, suf = ("" if self.noprefix else r.choice(self.P.PREFIX)), r.choice(self.P.SUFFIX)
            if suf == "?" and msg[-1:] in "?!.":
                suf = ""
            m = pre + msg + suf
            if r.random() < 0.25:
                m = m.lower()
            elif m[:1].islower() and r.random() < 0.4:
                m = m[:1].upper() + m[1:]
            return m
        pre, suf = ("" if self.noprefix else r.choice(self.P.PREFIX)), r.choice(self.P.SUFFIX)
        if suf and msg[-1:] in "？！。?!":
            suf = "" if suf in ("？", "?") else suf
        return pre + msg + suf

    def opener(self, tone, ctx, multi=False, core=""):
        if core.startswith(APOLOGY):
            return ""
        if ctx.get("name") and not multi and self.rng.random() < 0.75:
            return self.rng.choice(self.P.NAME_OPEN[tone]).format(**ctx)
        opts = self.P.OPEN[tone]
        if multi:  # no second greeting inside a conversation that is already going
            opts = [o for o in opts if not o.startswith(("Hi", "Hello", "您好"))] or [""]
        return self.rng.choice(opts)

    def join(self, *parts):
        parts = [p.strip() if self.lang == "en" else p for p in parts if p and p.strip()]
        # house style: at most 4 sentences; drop the opener, then the closer, if a combination runs longer
        while len(parts) > 1 and nsent(self.sep.join(parts)) > 4:
            parts = parts[1:] if nsent(parts[0]) <= 1 and len(parts) > 2 else parts[:-1]
        return self.sep.join(parts)

    def fmt(self, s, ctx):
        return s.format(**ctx)

    def accept(self, reply):
        if reply in self.used:
            return False
        self.used.add(reply)
        return True

    # ---- builders: each returns (context, history, message, reply) or None
    def b_sub(self, intent, spec, multi=False, with_noise=True):
        sub = self.rng.choice(spec["subs"])
        ctx = self.ctx([], noise=spec.get("noise", []) if with_noise else [])
        msg = self.vary(self.pick_msg((intent, id(sub)), sub["msgs"]))
        close = self.rng.choice(sub.get("close", spec.get("close", [""])))
        core = self.rng.choice(sub["cores"])
        rep = self.join(self.opener(sub["tone"], ctx, multi, core), core, close)
        return ctx, [], msg, rep

    def b_cf(self, intent, spec, multi=False):
        cf = self.rng.choice(spec["cf"])
        core, tail = self.rng.choice(cf["cores"]), self.rng.choice(cf.get("tails", [""]))
        msg = self.pick_msg((intent, id(cf)), cf["msgs"])
        fields = sorted(set(PH.findall(core + tail + msg)))
        ctx = self.ctx(fields, cf, cf.get("status"), spec.get("noise", []) + cf.get("opt", []))
        msg = self.vary(self.fmt(msg, ctx))
        rep = self.join(self.opener(cf["tone"], ctx, multi, core), self.fmt(core, ctx), self.fmt(tail, ctx))
        return ctx, [], msg, rep

    def b_follow(self, intent, spec):
        m1, a1, m2, reps, need = self.rng.choice(spec["follow"])
        rep = self.rng.choice(reps)
        fields = sorted(set(PH.findall(m1 + a1 + m2 + rep)) | set(need or []))
        status = "any" if "order_status" in fields else None
        ctx = self.ctx([f for f in fields if f != "order_status"], None, status, ["name"] if not need else [])
        hist = [
            {"role": "user", "content": self.fmt(m1, ctx)},
            {"role": "assistant", "content": self.fmt(a1, ctx)},
        ]
        lead = self.rng.choice(
            ["", "", ""] + (["Thanks! ", "Got it. "] if self.lang == "en" else ["好的，", "明白了，"])
        )
        reply = self.fmt(rep, ctx)
        if (
            lead
            and not reply.startswith(
                (
                    "Thanks",
                    "Sorry",
                    "Of course",
                    "Sure",
                    "No,",
                    "Yes",
                    "Got",
                    "I ",
                    "In ",
                    "Open",
                    "Switching",
                    "Changing",
                    "It's",
                    "Thank",
                )
            )
            and self.lang == "en"
        ):
            reply = lead + reply
        elif (
            lead
            and self.lang == "zh"
            and not reply.startswith(
                ("好的", "收到", "明白", "很抱歉", "辛苦", "没问题", "当然", "不会", "是的", "可以")
            )
        ):
            reply = lead + reply
        return ctx, hist, self.fmt(m2, ctx), reply

    def b_greet(self, intent, spec):
        g = self.rng.choice(self.P.GREET)
        use_cf = spec.get("cf") and self.rng.random() < 0.5
        self.noprefix = True
        r = self.b_cf(intent, spec, multi=True) if use_cf else self.b_sub(intent, spec, multi=True)
        self.noprefix = False
        ctx, _, msg, rep = r
        return ctx, [{"role": "user", "content": g[0]}, {"role": "assistant", "content": g[1]}], msg, rep

    def b_prior(self, intent, spec, first_noprefix=False):
        others = [
            i
            for i in PRIOR_OK
            if i != intent and i in self.P.INTENT_POOLS and self.P.INTENT_POOLS[i].get("subs")
        ]
        oi = self.rng.choice(others)
        self.noprefix = first_noprefix
        octx, _, omsg, orep = self.b_sub(oi, self.P.INTENT_POOLS[oi], with_noise=False, multi=first_noprefix)
        use_cf = spec.get("cf") and self.rng.random() < 0.6
        self.noprefix = True
        ctx, _, msg, rep = (
            self.b_cf(intent, spec, multi=True)
            if use_cf
            else self.b_sub(intent, spec, multi=True, with_noise=False)
        )
        self.noprefix = False
        link = self.rng.choice(self.P.ALSO)
        msg = link + (msg[:1].lower() + msg[1:] if self.lang == "en" and not msg.startswith("I ") else msg)
        return ctx, [{"role": "user", "content": omsg}, {"role": "assistant", "content": orep}], msg, rep

    def b_long(self, intent, spec):
        """Two earlier exchanges: a greeting, then another topic, then this intent."""
        g = self.rng.choice(self.P.GREET)
        ctx, hist, msg, rep = self.b_prior(intent, spec, first_noprefix=True)
        return (
            ctx,
            [{"role": "user", "content": g[0]}, {"role": "assistant", "content": g[1]}] + hist,
            msg,
            rep,
        )

    def b_askorder(self, intent, spec):
        cfs = [
            c for c in spec.get("cf", []) if c.get("status") and any("{order_id}" in x for x in c["cores"])
        ]
        if not cfs or not spec.get("subs"):
            return None
        cf = self.rng.choice(cfs)
        core = self.rng.choice([x for x in cf["cores"] if "{order_id}" in x])
        tail = self.rng.choice(cf.get("tails", [""]))
        first = self.rng.choice([m for m in cf["msgs"] if "{order_id}" not in m])
        fields = sorted(set(PH.findall(core + tail)))
        ctx = self.ctx(fields, cf, cf["status"])
        ask = self.rng.choice(self.P.ASK_WHICH)
        bare = self.rng.choice(self.P.BARE_ID).format(**ctx)
        thanks = self.rng.choice(self.P.THANKS_LEAD)
        rep = self.join(thanks, self.fmt(core, ctx), self.fmt(tail, ctx))
        return (
            ctx,
            [{"role": "user", "content": self.vary(first)}, {"role": "assistant", "content": ask}],
            bare,
            rep,
        )

    def b_thanks(self, intent, spec):
        oi = self.rng.choice([i for i in PRIOR_OK if i in self.P.INTENT_POOLS])
        octx, _, omsg, orep = self.b_sub(oi, self.P.INTENT_POOLS[oi], with_noise=False)
        ctx = self.ctx([], noise=["name"])
        b1 = self.rng.choice(self.P.BYE_REPLIES)
        b2 = self.rng.choice(self.P.BYE2)
        if ctx.get("name") and self.lang == "en":
            b1 = (
                b1.replace("!", f", {ctx['name']}!", 1) if "!" in b1 else b1.rstrip(".") + f", {ctx['name']}."
            )
        elif ctx.get("name"):
            b1 = f"不客气，{ctx['name']}！" + b1.split("！", 1)[-1] if "！" in b1 else b1
        return (
            ctx,
            [{"role": "user", "content": omsg}, {"role": "assistant", "content": orep}],
            self.rng.choice(self.P.THANKS),
            self.join(b1, b2),
        )

    def hand_records(self, convs):
        out = []
        for h in convs:
            rec = dict(
                domain=self.domain,
                lang=self.lang,
                intent=h[0],
                context=h[1],
                history=[
                    {"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(h[2])
                ],
                message=h[3],
                reply=h[4],
            )
            assert h[4] not in self.used, "duplicate hand-written reply: " + h[4]
            self.used.add(h[4])
            out.append(rec)
        return out

    def compose(self):
        P = self.P
        out = self.hand_records(getattr(P, "HAND", []))
        # rules_<domain>_<lang>.py: hand-written conversations on the reply rules (ask for the one missing
        # detail, state no account fact the context lacks, fixed-line faults), written out as they are after
        # HAND. They are added on top of each intent's target, so the composed conversations stay the same.
        have0 = {i: sum(1 for r in out if r["intent"] == i) for i in P.INTENT_POOLS}
        if os.path.exists(os.path.join(HERE, f"rules_{self.domain}_{self.lang}.py")):
            R = __import__(f"rules_{self.domain}_{self.lang}")
            for situation, convs in R.RULES.items():
                recs = self.hand_records(convs)
                self.kinds["rules:" + situation] = len(recs)
                out += recs
        total = TARGET[(self.domain, self.lang)]
        intents = list(P.INTENT_POOLS)
        per = {i: total // len(intents) for i in intents}
        have = dict(have0)
        for intent in intents:
            spec = P.INTENT_POOLS[intent]
            kinds = [("sub", 0.40)]
            if spec.get("cf"):
                kinds.append(("cf", 0.36))
            if spec.get("follow"):
                kinds.append(("follow", 0.10))
            kinds += [("greet", 0.08), ("prior", 0.10), ("long", 0.06)]
            if intent in (
                "order_tracking",
                "order_cancel",
                "order_modify",
                "return_exchange",
                "delivery_problem",
            ):
                kinds.append(("askorder", 0.08))
            if intent == "greeting_chitchat":
                kinds = [("sub", 0.55), ("thanks", 0.45)]  # thanks/goodbye after an earlier exchange
            names, weights = zip(*kinds, strict=True)
            fails = 0
            while have[intent] < per[intent] and fails < 400:
                k = self.rng.choices(names, weights)[0]
                r = getattr(self, "b_" + k)(intent, spec)
                if r is None or not self.accept(r[3]):
                    fails += 1
                    continue
                ctx, hist, msg, rep = r
                out.append(
                    dict(
                        domain=self.domain,
                        lang=self.lang,
                        intent=intent,
                        context=ctx,
                        history=hist,
                        message=msg,
                        reply=rep,
                    )
                )
                self.kinds[k] = self.kinds.get(k, 0) + 1
                have[intent] += 1
        return out


# ---------------------------------------------------------------- validation (python compose.py --check)
ROOT = os.path.dirname(os.path.dirname(HERE))


def check_files(paths):
    """Checks the written files against the prompt library: JSON, llm route per the manifest, language script,
    must_include in the reference, every number of a reply found in the intent's guidance, the context or the
    customer's messages; prints offenders and counts per domain/lang/intent."""
    import collections

    import yaml

    man = yaml.safe_load(open(os.path.join(ROOT, "prompts", "manifest.yaml"), encoding="utf-8"))
    P, G = {}, {}
    for dom, fl in man["files"].items():
        for lang, f in fl.items():
            y = yaml.safe_load(open(os.path.join(ROOT, "prompts", f), encoding="utf-8"))
            P[(dom, lang)] = y
            for it, val in y["intents"].items():
                G[(dom, lang, it)] = val["guidance"].replace("{{ company }}", y["company"])

    def route(dom, it):
        r = man["routes"].get(it, man.get("default_route", "llm"))
        for o in man.get("overrides", []):
            if o["domain"] == dom and o["intent"] == it:
                r = o["route"]
        return r

    LLM = {
        d: sorted(i for i in P[(d, "en")]["intents"] if route(d, i) == "llm")
        for d in ("telecom", "ecommerce")
    }
    NUM = re.compile(r"\d+(?:[.,:]\d+)*")
    CJK = re.compile(r"[\u4e00-\u9fff]")
    # a detail the conversation already holds (context or the customer's own messages), and a reply asking
    # for it
    HAS = {
        "order number": re.compile(r"#?W\d{7}|EM-\d{5}|SC\d{11}|DD\d{10}"),
        "phone number": re.compile(r"(?<!\d)1[3-9]\d{9}(?!\d)|(?<![\d-])0\d{2} ?\d{3} ?\d{4}(?!\d)"),
        "postcode": re.compile(r"\b[A-Z]\d[\dW] ?[A-Z0-9]{4}\b|邮编\D{0,3}\d{6}|^\d{6}$"),
    }
    ASKS = {
        "order number": re.compile(
            r"(?i)(send|tell|give) (me|us) (the |your )?order number|which order|"
            r"what's the order number|(发|提供|告诉).{0,6}订单号|订单号(是多少|发给我)|哪个订单"
        ),
        "phone number": re.compile(
            r"(?i)(send|tell|give) me (the|your) (phone )?number|phone number on (your|the) "
            r"account\?|(发|提供).{0,8}手机号码"
        ),
        "postcode": re.compile(
            r"(?i)(what's|what is|which|tell me|send me) (your )?postcode|邮编是多少|告诉我.{0,4}邮编"
        ),
    }

    def check(rec, kind):
        errs = []
        d, lang, it = rec["domain"], rec["lang"], rec["intent"]
        if it not in LLM.get(d, []):
            errs.append("not llm route")
        ctx = rec.get("context") or {}
        for k, val in ctx.items():
            if k not in FIELD_ORDER:
                errs.append("ctx field " + k)
            if not isinstance(val, (str, int, float)):
                errs.append("ctx value type")
        if kind == "eval":
            msgs, ref = rec["messages"], rec["reference"]
            roles = [m["role"] for m in msgs]
            texts = [m["content"] for m in msgs]
            for sub in rec.get("must_include", []):
                if sub not in ref:
                    errs.append("must_include not in reference: " + sub)
            for sub in rec.get("must_not_include", []):
                if sub in ref:
                    errs.append("must_not_include in reference: " + sub)
            outs = [ref]
        else:
            roles = [h["role"] for h in rec["history"]] + ["user"]
            texts = [h["content"] for h in rec["history"]] + [rec["message"]]
            outs = [rec["reply"]] + [h["content"] for h in rec["history"] if h["role"] == "assistant"]
        if (
            any(roles[i] != ("user" if i % 2 == 0 else "assistant") for i in range(len(roles)))
            or roles[-1] != "user"
        ):
            errs.append("roles")
        users = [t for t, r in zip(texts, roles, strict=True) if r == "user"]
        for what, has in HAS.items():
            held = any(has.search(t) for t in users) or (what == "order number" and "order_id" in ctx)
            if held and ASKS[what].search(outs[0]):
                errs.append("asks again for the " + what)
        if re.search(r"@\w", outs[0]):
            errs.append("social-media handle in a reply")
        allowed = G[(d, lang, it)] + " " + " ".join(str(x) for x in ctx.values()) + " " + " ".join(texts)
        for o in outs:
            for n in NUM.findall(o):
                if n not in allowed:
                    errs.append("unsupported number " + n)
            cj = len(CJK.findall(o))
            if lang == "en" and cj:
                errs.append("CJK in an English reply")
            if lang == "zh" and cj < 0.3 * len(re.sub(r"[\sA-Za-z0-9#*.\-/:¥$]", "", o)):
                errs.append("too little Chinese in a zh reply")
            if lang == "zh" and re.search(r"[\u4e00-\u9fff][,?!;:]|[,?!;:][\u4e00-\u9fff]", o):
                errs.append("half-width punctuation in zh")
            if "{{" in o or "{%" in o or PH.search(o):
                errs.append("template text")
            if nsent(o) > 4:
                errs.append("more than 4 sentences")
        return errs

    total_bad = 0
    for path in paths:
        kind = "eval" if os.sep + "eval" + os.sep in path else "train"
        C = collections.Counter()
        n = bad = ctxn = facts = multi = 0
        src, outs = collections.Counter(), collections.Counter()
        for i, line in enumerate(open(path, encoding="utf-8")):
            rec = json.loads(line)
            n += 1
            e = check(rec, kind)
            if e:
                bad += 1
                print(f"  {os.path.basename(path)}:{i + 1} {rec['intent']} {e}")
            C[(rec["domain"], rec["lang"], rec["intent"])] += 1
            ctx = rec.get("context") or {}
            ctxn += bool(ctx)
            facts += bool(set(ctx) - {"name"})
            if kind == "eval":
                src[rec["source"]] += 1
                outs[rec["reference"]] += 1
                multi += len(rec["messages"]) > 1
            else:
                outs[rec["reply"]] += 1
                multi += bool(rec["history"])
        dup = sum(x - 1 for x in outs.values() if x > 1)
        total_bad += bad + dup
        print(
            f"{os.path.relpath(path, ROOT)}: {n} conversations, {bad} with problems, "
            f"{dup} duplicate replies; with context {ctxn} ({ctxn / n:.0%}), "
            f"with facts beyond a name {facts} ({facts / n:.0%}), multi-turn {multi} ({multi / n:.0%})"
        )
        if src:
            print("  sources:", dict(src))
        by = collections.Counter((d, lang) for d, lang, _ in C.elements())
        for (d, lang), k in sorted(by.items()):
            miss = [i for i in LLM[d] if C[(d, lang, i)] == 0]
            print(
                f"  {d}/{lang} {k}:",
                " ".join(f"{i}={C[(d, lang, i)]}" for i in LLM[d]),
                ("MISSING " + str(miss)) if miss else "",
            )
    return total_bad


def main():
    rng = random.Random(SEED)
    files = {"en": [], "zh": []}
    used = {"en": set(), "zh": set()}  # no reply is written twice within a language file
    for domain, lang in TARGET:
        c = Composer(domain, lang, rng, used[lang])
        files[lang] += c.compose()
        rules = {k.split(":", 1)[1]: v for k, v in c.kinds.items() if k.startswith("rules:")}
        if rules:
            print(f"{domain}/{lang} reply-rule conversations: {sum(rules.values())}", rules)
    for lang, recs in files.items():
        with open(os.path.join(HERE, f"train_{lang}.jsonl"), "w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        print(lang, len(recs))


if __name__ == "__main__":
    if "--check" in sys.argv:
        sys.exit(
            1
            if check_files(
                [
                    os.path.join(HERE, "train_en.jsonl"),
                    os.path.join(HERE, "train_zh.jsonl"),
                    os.path.join(ROOT, "data", "eval", "replies_llm.jsonl"),
                ]
            )
            else 0
        )
    main()
