"""`rules` router backend: keyword and regex patterns in English and Chinese. Always available (no model),
the last resort of the fallback chain, and a baseline the model backends must beat."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import numpy as np

from serve.router.base import IntentResult, Thresholds, decide, softmax
from serve.router.encoding import detect_lang, normalize
from serve.taxonomy import INTENTS

# (pattern, weight). English patterns match on lower-cased text with word boundaries where it matters;
# Chinese patterns are plain substrings or short regexes.
RULES: dict[str, list[tuple[str, float]]] = {
    "account_access": [
        (r"\b(log ?in|sign ?in|log on)\b", 1.5),
        (r"\bpass ?word\b|\bpasscode\b", 2.0),
        (r"\bpin\b(?! ?code for sim)", 1.0),
        (r"\b(2fa|two.factor|otp|verification code|one.time code)\b", 2.0),
        (r"\b(locked|frozen|blocked) (out|account)\b", 2.0),
        (r"\baccount (is |got )?(locked|frozen|blocked|suspended)\b", 2.0),
        (r"\bverify (my )?identity\b", 1.5),
        (r"\bcan'?t (get into|access) my account\b", 2.0),
        (r"\bforgot\b", 1.0),
        ("登录|登陆|登不上|登不进", 2.0),
        ("密码", 2.0),
        ("验证码", 2.0),
        ("账号被(冻结|锁|封)|帐号被(冻结|锁|封)", 2.5),
        ("实名认证|身份验证", 1.5),
        ("解锁账号|账户锁定", 2.0),
    ],
    "account_manage": [
        (r"\b(create|open|make|register) (a |an |new )*account\b", 2.0),
        (r"\b(close|delete|deactivate) (my )?account\b", 2.0),
        (
            r"\b(change|update|edit) (my )?(name|email|e-mail|address|phone number|contact details|"
            r"profile)\b",
            2.0,
        ),
        (r"\b(newsletter|marketing|unsubscribe|promotional (emails|messages|sms))\b", 2.0),
        ("注册账号|注册帐号|开户", 1.5),
        ("注销账号|注销帐号|注销账户|删除账号", 2.5),
        ("修改(姓名|名字|邮箱|地址|手机号|资料)|更改(姓名|邮箱|资料)", 2.0),
        ("个人信息|个人资料", 1.0),
        ("营销短信|推销短信|退订短信|广告短信|取消订阅邮件", 2.0),
        ("过户", 1.5),
    ],
    "billing_inquiry": [
        (r"\b(bill|invoice|statement)\b", 1.0),
        (r"\b(explain|understand|see|view|copy of|download) (my |the )?(bill|invoice)\b", 2.0),
        (r"\bamount (due|owed)\b|\bhow much do i owe\b|\bdue date\b", 2.0),
        (r"\bwhy is my bill (so )?(high|higher)\b", 1.5),
        ("账单|帐单", 1.5),
        ("发票", 2.0),
        ("本月(话费|消费)明细|消费明细|扣费明细", 1.5),
        ("应缴|欠多少|还款日|缴费日期", 1.5),
    ],
    "billing_dispute": [
        (r"\b(charged|billed) (me )?(twice|double|two times|wrong|incorrectly|for something)\b", 3.0),
        (
            r"\b(double|duplicate|unknown|unauthori[sz]ed|mystery|wrong|extra|hidden) (charge|fee|payment|"
            r"deduction)s?\b",
            3.0,
        ),
        (r"\bdispute\b", 2.5),
        (r"\bovercharg", 3.0),
        (r"\bdidn'?t (order|buy|subscribe|authori[sz]e)\b", 1.5),
        (r"\bwhat is this charge\b|\bcharge i don'?t recogni[sz]e\b", 2.5),
        ("多扣|乱扣|重复扣|扣了两次|扣两次|扣错|无故扣|莫名其妙.*扣|扣费不对|不明扣费|被扣了?\\d+", 3.0),
        ("我没(开通|订|办|用)过", 2.0),
        ("凭什么扣", 3.0),
        ("申诉.*(费|扣)", 2.0),
        ("退还多扣", 2.0),
    ],
    "payment_issue": [
        (r"\bpayment (failed|declined|didn'?t go through|not going through|error|rejected)\b", 3.0),
        (r"\b(card|transaction) (was |got |is )?(declined|rejected|failed)\b", 3.0),
        (r"\bcan'?t (pay|make a payment|checkout)\b", 2.0),
        (
            r"\b(payment method|pay with|paypal|apple pay|google pay|instal?lments?|cash on delivery|\bcod\b|"
            r"credit card|debit card)\b",
            1.5,
        ),
        (r"\b(update|change|add|remove) (my )?(card|payment method|payment details)\b", 2.5),
        ("支付失败|付款失败|付不了|付不了款|无法支付|支付不了|扣款失败|交易失败", 3.0),
        ("支付方式|付款方式|分期|货到付款|花呗|信用卡支付|微信支付|支付宝", 1.5),
        ("绑定(银行卡|信用卡)|更换(银行卡|支付)|解绑", 2.0),
        ("钱扣了.*没到账|充了没到账|扣钱了.*(没|未)到账", 2.5),
    ],
    "pay_bill_topup": [
        (r"\b(top ?up|recharge|add credit|topup)\b", 2.5),
        (r"\bpay (my |the )?(bill|invoice|balance)\b", 2.5),
        (r"\b(auto ?pay|direct debit|automatic payment|recurring payment|scheduled payment)\b", 2.0),
        (r"\bvoucher\b.*\bcredit\b", 1.0),
        ("充值|充话费|充个?\\d+|交话费|缴话费|缴费|交费|续费", 2.5),
        ("自动(扣费|缴费|续费|充值)|代扣", 2.0),
    ],
    "cancel_service": [
        (
            r"\bcancel (my )?(subscription|contract|plan|line|service|membership|broadband|account with you|"
            r"add.?on)\b",
            3.0,
        ),
        (r"\b(terminate|end|quit|leave|stop) (my )?(contract|subscription|service|plan|line)\b", 2.5),
        (r"\b(cancellation|termination|early exit) fee\b", 3.0),
        (r"\bunsubscribe from\b.*\b(plan|service|package)\b", 2.0),
        ("销户|销号|停号|注销号码|注销手机号|拆机", 3.0),
        ("退订|取消(套餐|业务|订阅|会员|合约|宽带|包月|自动续费)", 2.5),
        ("解约|违约金|提前解除合约", 3.0),
        ("不想用你们.*了|不用了.*取消", 1.5),
    ],
    "complaint_feedback": [
        (
            r"\b(complain|complaint|terrible|awful|horrible|worst|disgusting|unacceptable|ridiculous|rude|disappointed)\b",
            2.0,
        ),
        (r"\b(feedback|suggestion|review|rate your|compliment)\b", 2.0),
        (r"\bnot happy with\b|\bpoor service\b", 2.0),
        ("投诉", 3.0),
        ("态度(差|恶劣|不好)|服务(差|太差|真差)|垃圾|太烂", 2.5),
        ("差评|好评|建议|反馈|意见", 2.0),
        ("不满意", 2.0),
    ],
    "contact_human": [
        (
            r"\b(human|real person|live agent|an agent|representative|operator|customer service|"
            r"someone real)\b",
            2.5,
        ),
        (r"\b(talk|speak|chat) (to|with) (a |an |someone|somebody|your)", 1.5),
        (r"\bphone number\b.*\b(call|support|you)\b", 1.5),
        (r"\bcall (centre|center)\b|\bhotline\b|\bcontact (you|details|number)\b|\bstore address\b", 2.0),
        ("人工|转人工|真人|客服电话|客服热线|联系客服|找客服|接线员", 3.0),
        ("营业厅(地址|在哪)|电话多少|怎么联系", 2.0),
    ],
    "app_website_issue": [
        (
            r"\b(app|website|site|web ?page|page|portal|checkout page|cart|search)\b.*\b(crash|crashes|"
            r"crashing|error|not working|won'?t load|doesn'?t load|broken|blank|stuck|freez|bug)",
            3.0,
        ),
        (r"\b(crash|crashes|crashing|error code|bug|glitch|404|500 error|keeps loading)\b", 1.5),
        (
            "(APP|app|App|网页|网站|页面|客户端|小程序|购物车|搜索).*(闪退|打不开|崩溃|报错|卡住|白屏|加载不出|进不去|用不了|出错)",
            3.0,
        ),
        ("闪退|白屏|报错|崩了|加载不出来", 2.0),
    ],
    "greeting_chitchat": [
        (r"^(hi|hello|hey|hiya|yo|good (morning|afternoon|evening)|greetings)\b[ !.]*$", 4.0),
        (r"^(thanks|thank you|thx|ty|cheers|bye|goodbye|see you|ok thanks)\b[ !.]*", 3.0),
        (r"\bare you (a )?(bot|robot|human|real|ai)\b|\bwhat can you do\b|\bwho are you\b", 3.0),
        ("^(你好|您好|在吗|在不在|哈喽|嗨|早上好|晚上好)[!！?？。~]*$", 4.0),
        ("^(谢谢|多谢|感谢|好的谢谢|再见|拜拜)", 3.0),
        ("你是(机器人|真人|人工智能|AI)|你能做什么|你会什么|你是谁", 3.0),
    ],
    "out_of_scope": [
        (
            r"\b(weather|recipe|poem|joke|capital of|movie|song|football|soccer|stock price|bitcoin|"
            r"horoscope|translate)\b",
            2.5,
        ),
        ("天气|菜谱|怎么做菜|写(一)?首诗|讲个?笑话|股票|比特币|电影|球赛|星座|翻译|数学题", 2.5),
    ],
    "balance_usage_inquiry": [
        (
            r"\b(data|minutes|texts|sms|credit|balance|allowance)\b.*\b(left|remaining|used|usage|check)\b",
            2.5,
        ),
        (r"\b(check|what'?s|how much) (is )?(my )?(balance|credit|data|allowance|usage)\b", 2.5),
        (r"\bcurrent plan\b|\bmy plan details\b", 1.5),
        (
            "余额|话费还有|还剩多少|剩余(流量|话费|通话|短信)|流量(还剩|用了|剩)|查(话费|流量|余额)|用了多少",
            3.0,
        ),
        ("当前套餐|我的套餐是", 1.5),
    ],
    "plan_change": [
        (
            r"\b(upgrade|downgrade|change|switch|extend|renew) (my |the )?(plan|tariff|package|bundle|"
            r"contract)\b",
            3.0,
        ),
        (r"\b(new|cheaper|bigger|better|unlimited) (plan|tariff|package|bundle)\b", 2.0),
        (r"\b(add|buy) (a |an |more |extra )?(data|data pack|add.?on|line|sim)\b", 2.0),
        ("换套餐|改套餐|变更套餐|升级套餐|降(级)?套餐|办理套餐|办个套餐|套餐升级|套餐变更", 3.0),
        ("加油包|流量包|叠加包|副卡|加一张卡", 2.5),
        ("(更|便宜|划算).*套餐|套餐.*(便宜|划算)", 1.5),
        ("续约|合约机", 1.5),
    ],
    "network_fault": [
        (r"\b(no (signal|service|network|coverage|internet)|emergency calls only|sos only)\b", 3.0),
        (
            r"\b(signal|coverage|reception|internet|wifi|wi-fi|broadband|connection|data|4g|5g|lte|router|"
            r"hotspot)\b.*\b(slow|down|drop|dropping|not working|weak|keeps|outage|disconnect|lost|poor|bad)",
            2.5,
        ),
        (r"\b(dropped calls|calls (keep )?drop|can'?t make calls|mms)\b", 2.5),
        (r"\boutage\b", 2.5),
        (
            "没(有)?信号|信号(差|不好|弱)|无服务|断网|网(速)?(慢|卡)|上不了网|宽带(坏|断|不能用|连不上)|掉线|打不出(去)?电话|接不到电话",
            3.0,
        ),
        ("光猫|路由器.*(红灯|亮)|5G.*(差|慢|不稳)|4G.*(差|慢)", 2.0),
    ],
    "roaming_international": [
        (
            r"\b(roaming|abroad|overseas|international|travel(l)?ing to|trip to|while in [A-Z]|"
            r"country code)\b",
            3.0,
        ),
        ("漫游|出国|境外|国外|国际长途|港澳台|出境", 3.0),
    ],
    "sim_device": [
        (r"\b(sim|e-?sim|puk|imei)\b", 2.5),
        (r"\b(lost|stolen|broke|broken) (my )?(phone|mobile|handset|sim)\b", 3.0),
        (r"\b(port|transfer|keep) (my )?(number)\b|\bpac code\b|\bnumber porting\b", 3.0),
        (r"\bunlock (my )?phone\b|\bnetwork unlock\b", 2.5),
        (r"\b(set up|setup|activate) (my )?(new )?(phone|device|sim)\b", 2.0),
        ("SIM卡|sim卡|手机卡|电话卡|补卡|换卡|挂失|eSIM|esim|PUK|puk", 3.0),
        ("携号转网|转网", 3.0),
        ("手机(丢|被偷|掉)了?|手机坏了", 2.5),
        ("激活(新)?(卡|手机)|新手机.*设置", 2.0),
    ],
    "order_tracking": [
        (r"\bwhere('?s| is) (my )?(order|parcel|package|delivery|stuff)\b", 3.0),
        (r"\b(track|tracking)( number| my| the)?\b", 2.5),
        (
            r"\b(when will|when does|when is) (my )?(order|parcel|package|it)\b.*\b(arrive|come|ship|"
            r"deliver)",
            2.5,
        ),
        (r"\border status\b|\bhas (my order|it) (shipped|been sent)\b|\bestimated delivery\b", 2.5),
        (
            "物流|快递到哪|到哪了|什么时候(到|发货|送到)|发货了吗|查(一下)?订单|订单状态|催(一下)?(单|发货)|运单号|快递单号",
            3.0,
        ),
    ],
    "delivery_problem": [
        (
            r"\b(late|delayed|lost|missing|never arrived|didn'?t arrive|not arrived|wrong item|wrong size|"
            r"damaged|broken|crushed|smashed)\b.*\b(order|parcel|package|item|delivery|box)\b",
            2.5,
        ),
        (
            r"\b(order|parcel|package|item|delivery|box)\b.*\b(late|delayed|lost|missing|never arrived|"
            r"damaged|broken|crushed|wrong)\b",
            2.5,
        ),
        (r"\bmarked (as )?delivered\b|\bnot received\b|\bsomething missing\b", 3.0),
        (
            "丢件|破损|坏了的?(货|东西)|错发|发错|少件|少发|漏发|没收到|显示签收|签收了.*没|快递(延误|太慢|一直不动)|压坏|摔坏",
            3.0,
        ),
    ],
    "order_cancel": [
        (r"\bcancel (my |the |this |an |that )?(order|purchase)\b", 3.5),
        (r"\b(don'?t|do not) want (the |my )?order\b", 2.0),
        ("取消订单|订单取消|不要这个订单|撤销订单|退掉订单|订单不要了|取消购买", 3.5),
    ],
    "order_modify": [
        (
            r"\b(change|modify|edit|update|switch)\b.*\b(order|shipping address|delivery address|size|"
            r"colou?r|quantity)\b",
            2.5,
        ),
        (r"\b(add|remove) (an? )?(item|product)\b.*\border\b|\bexpress (shipping|delivery) instead\b", 2.5),
        ("改地址|修改地址|修改订单|更改订单|换(个)?(颜色|尺码|规格)|改(尺码|颜色|数量)|加急|改成顺丰", 3.0),
    ],
    "return_exchange": [
        (
            r"\b(return|send back|exchange|swap|replace)\b.*\b(item|product|order|it|shoes|dress|shirt|"
            r"size)?\b",
            2.0,
        ),
        (r"\breturn policy\b|\bwarranty\b|\brepair\b|\bguarantee\b|\brma\b", 2.5),
        ("退货|换货|退换|七天无理由|7天无理由|保修|维修|质保|售后", 3.0),
    ],
    "refund": [
        (r"\brefund(s|ed)?\b", 3.0),
        (r"\bmoney back\b|\breimburse", 2.5),
        ("退款|退钱|钱退|退回.*钱|仅退款|到账.*退|退.*到账", 3.0),
    ],
    "promo_coupon_pricing": [
        (
            r"\b(coupon|promo|promotion|discount|voucher code|code|price match|price protection|price drop|"
            r"sale price|referral)\b",
            2.5,
        ),
        ("优惠券|优惠码|满减|折扣|打折|价保|保价|降价|差价|促销|红包|返现|推荐奖励|邀请码", 3.0),
    ],
    "product_presales_inquiry": [
        (
            r"\b(in stock|available|availability|specs|specifications|how much (is|does)|price of|cost of|"
            r"does it come in|ship to|shipping (cost|options|fee))\b",
            2.5,
        ),
        (r"\b(do you (sell|have|ship)|can i (buy|order)|how (do|can) i (order|buy|place an order))\b", 2.5),
        (
            "有货|现货|库存|还有(货|吗)|规格|参数|多少钱|价格|尺码表|发货地|包邮|运费|能送到|怎么下单|预售|能买吗",
            2.5,
        ),
    ],
}

# A small prior so that a message with no pattern at all reads as out of scope, not as the first label.
_OOS_PRIOR = 0.8
_COMPILED = {intent: [(re.compile(p, re.IGNORECASE), w) for p, w in pats] for intent, pats in RULES.items()}


def score_text(text: str) -> np.ndarray:
    norm = normalize(text)
    scores = np.zeros(len(INTENTS), dtype=np.float64)
    for i, intent in enumerate(INTENTS):
        for pattern, weight in _COMPILED.get(intent, []):
            if pattern.search(norm):
                scores[i] += weight
    scores[INTENTS.index("out_of_scope")] += _OOS_PRIOR
    return scores


class RulesRouter:
    name = "rules"
    labels = INTENTS

    def __init__(self, thresholds: Thresholds | None = None, temperature: float = 0.7) -> None:
        self.thresholds = thresholds or Thresholds()
        self.temperature = temperature

    async def classify(self, texts: list[str], top_k: int = 5) -> list[IntentResult]:
        started = time.perf_counter()
        results = []
        for text in texts:
            probs = softmax(score_text(text), self.temperature)
            label, confidence, ranking, uncertain, reason = decide(probs, self.labels, self.thresholds, top_k)
            results.append(
                IntentResult(
                    label,
                    confidence,
                    ranking,
                    uncertain,
                    reason,
                    self.name,
                    detect_lang(normalize(text)),
                    False,
                    0,
                    0.0,
                )
            )
        latency = round((time.perf_counter() - started) * 1000, 3)
        return [replace(r, latency_ms=latency) for r in results]

    async def check_health(self) -> None:
        return None

    async def aclose(self) -> None:
        return None
