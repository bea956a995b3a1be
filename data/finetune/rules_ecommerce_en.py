"""Hand-written conversations on the reply rules, e-commerce / English (Example Shop). See README.md, "Reply rules".

Same tuple as HAND in the pools: (intent, context, earlier turns, message, reply), written out as they are by
compose.py, after HAND and on top of each intent's target. Facts come only from the intent's guidance
(prompts/ecommerce/en.yaml), the knowledge entries (knowledge/ecommerce/en) and the conversation itself.

- ASK: the answer needs the customer's order (its status, a charge, a refund, a damaged item) and neither the
  context nor the conversation holds it: acknowledge, then ask for the ONE missing detail (the order number, or a
  photo of the damage), or offer a human agent and say why, instead of generic self-service steps.
- GIVEN: the order number, status or photo is already in the context or the conversation: use it, don't ask again.
- NO_INVENT: the context lacks the fact asked about, or holds only a name, or the customer writes a social-media
  handle: state no order or account detail that isn't given, and never greet by a handle.
"""

ASK = [
    (
        "order_tracking",
        {},
        [],
        "where's my order??",
        "Sorry you're still waiting. Could you send me the order number? It's in your order confirmation email, and with it we can see where your parcel is.",
    ),
    (
        "order_tracking",
        {},
        [],
        "@ExampleShop 10 days and still nothing. great service 👏",
        "Sorry for the long wait, that's not what we want either. Please send me your order number and we'll check what's holding it up.",
    ),
    (
        "order_tracking",
        {},
        [],
        "Hi, I ordered a gift for my sister's birthday a while ago and the day is getting close now and I haven't had any update at all, could someone please tell me if it's actually on its way?",
        "Of course, let's make sure it gets there. Could you send me the order number from your confirmation email? Then we can check exactly where it is.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "package never came",
        "I'm sorry your package hasn't arrived. What's the order number? With it we can check the delivery and take it from there.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "the lamp arrived in pieces",
        "I'm so sorry it arrived broken. Please keep the packaging and send us a photo of the damage with a report under My Orders > Report a problem; a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "got a parcel today but it's someone else's order, not my stuff at all",
        "Sorry about the mix-up. Could you take a photo of what arrived and the label on the box, and add it under My Orders > Report a problem? Please keep everything in its packaging while a colleague reviews it.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "@ExampleShop your courier threw my parcel over the fence and now the vase is smashed. brilliant.",
        "I'm really sorry, that's not how your parcel should be treated. Please keep the packaging and add a photo of the smashed vase under My Orders > Report a problem, so a colleague can review it.",
    ),
    (
        "order_cancel",
        {},
        [],
        "cancel my order asap",
        "Sure, let's move quickly. Which order is it? Please send me the order number, as an order can only be cancelled while it's still pending.",
    ),
    (
        "order_cancel",
        {},
        [],
        "i cancelled an order last week, where's my money",
        "Sorry for the wait. A cancelled order's money goes back to the original payment method: straight away for gift cards, otherwise usually within 5 to 7 business days. If it's been longer, send me the order number and we'll check it.",
    ),
    (
        "order_cancel",
        {},
        [],
        "Can u cancel the thing I ordered last night, I clicked buy twice by mistake",
        "No problem, that happens. Please send me the order number of the one you don't want, and we'll check it's still pending so it can be cancelled.",
    ),
    (
        "order_modify",
        {},
        [],
        "wrong address on my order!!",
        "Don't worry, a pending order's delivery address can still be changed. What's the order number? Then we can check whether it has shipped.",
    ),
    (
        "return_exchange",
        {},
        [],
        "my return was picked up two weeks ago and I still have no refund",
        "Sorry you're still waiting for it. Could you send me the order number of the return? A colleague will check where the refund is.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "how much did I pay for my last order? need it for expenses",
        "Happy to help with that. Which order is it? If you send me the order number, we can tell you the amount charged.",
    ),
    (
        "payment_issue",
        {},
        [],
        "I got charged but the site said payment failed and I don't have any order",
        "Sorry, that's confusing. As there's no order to look at, a human agent will need to trace the charge with you, so please reply \"human agent\"; don't share any card details here.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "price dropped the day after I bought it. can I get the difference?",
        "I understand that's annoying. I can't promise an adjustment, but a colleague can review it: please send me the order number.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [],
        "the store credit from my return isn't showing in my account",
        "Sorry it hasn't appeared. Could you send me the order number of the return? A colleague will check where the store credit is.",
    ),
    (
        "sim_device",
        {},
        [],
        "the smartwatch I got from you won't switch on anymore, had it two months",
        "Sorry it's stopped working. Repairs under warranty are handled by a colleague, so please send me the order number and we'll pass it on.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "why was I charged for delivery? I'm a Plus member",
        "Sorry about that, let's get it checked. Could you send me the order number? A colleague will look at the delivery charge on that order with you.",
    ),
]

GIVEN = [
    (
        "order_tracking",
        {"order_id": "#W6624017", "order_status": "Shipped", "delivery_eta": "2026-12-11"},
        [],
        "do you need my order number?",
        "No need, I can see it: your order #W6624017 has shipped, with an estimated delivery of 2026-12-11. You can follow it under My Orders > Track package.",
    ),
    (
        "order_tracking",
        {},
        [],
        "order W5531208 hasn't moved in 4 days",
        'Sorry it seems stuck. I can\'t see the tracking for W5531208 in this chat, so please reply "human agent" and a colleague will look into it.',
    ),
    (
        "order_tracking",
        {},
        ["where is my parcel", "Sorry you're still waiting. Could you send me the order number?"],
        "it's W8821340, the blue backpack",
        "Thanks! A colleague will check order W8821340 and reply here, so please keep this chat open.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W3310578", "order_status": "Delivered"},
        [],
        "I already uploaded photos of the broken mugs in Report a problem",
        "Thank you for sending them. A colleague will review your report for order #W3310578 with the photos, so there's nothing more you need to send.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W7702914", "order_status": "Delivered", "item": "stand mixer"},
        [],
        "the mixer bowl is cracked",
        "I'm sorry your stand mixer arrived damaged. Please keep the packaging and add a photo of the crack under My Orders > Report a problem for order #W7702914; a colleague will review it.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "@ExampleShop order #W4410923 says delivered but there's nothing on my doorstep",
        'Sorry about that. Please check your safe place and with neighbours or the building reception first, and if it isn\'t there, reply "human agent" and a colleague will look into order #W4410923.',
    ),
    (
        "order_modify",
        {"order_id": "#W2940117", "order_status": "Pending"},
        [],
        "change the size to M please",
        "Your order #W2940117 is still pending, so you can change the size under My Orders > Change order. Item changes can be made only once, so include anything else you want to change.",
    ),
    (
        "order_cancel",
        {"order_id": "#W5518064", "order_status": "Cancelled"},
        [],
        "cancelled it yesterday, when's my refund?",
        "Your order #W5518064 shows as cancelled, and the money goes back to your original payment method. Gift card refunds are immediate, and card or PayPal refunds usually take 5 to 7 business days.",
    ),
    (
        "order_cancel",
        {"order_id": "#W8180332", "order_status": "Pending"},
        ["hi, I want to cancel order W8180332", "Of course! Let me check that for you."],
        "can you do it now",
        "Your order #W8180332 is still pending, so you can cancel it right away under My Orders > Cancel order, choosing a reason. The money goes back to your original payment method.",
    ),
    (
        "billing_inquiry",
        {"order_id": "#W6150293", "bill_amount": "€132.40"},
        [],
        "what did I actually pay for this order",
        "Order #W6150293 came to €132.40. You'll find the item prices, delivery cost and any discounts on its invoice under My Orders.",
    ),
    (
        "return_exchange",
        {"order_id": "#W4072286", "order_status": "Delivered", "item": "denim jacket"},
        [],
        "want to swap the jacket for a bigger size",
        "Your order #W4072286 has been delivered, so you can exchange the denim jacket for another size under My Orders > Return or exchange. The page shows whether it's eligible, and an email explains how to send it back.",
    ),
    (
        "payment_issue",
        {"order_id": "#W9907315", "order_status": "Pending"},
        [],
        "my card was declined for this order, can I pay another way?",
        "Sorry the card didn't go through. As order #W9907315 hasn't shipped yet, you can pick a different payment method for it in My Orders; please never type card details in this chat.",
    ),
    (
        "delivery_problem",
        {},
        [
            "box arrived crushed",
            "I'm sorry! Please keep the packaging and add a photo of the damage under My Orders > Report a problem.",
        ],
        "done, sent 2 pictures just now. order W3356120",
        "Thanks for sending those. A colleague will review the report for order W3356120 with your photos and get back to you.",
    ),
    (
        "order_tracking",
        {"order_id": "#W1455803", "order_status": "Out for delivery", "tracking_number": "TBA55810273390"},
        [],
        "Here's my order number again: W1455803. Where is it?",
        "Thanks! Your order #W1455803 is out for delivery, so it should be with you soon. You can follow it with tracking number TBA55810273390 under My Orders > Track package.",
    ),
    (
        "return_exchange",
        {"order_id": "#W2207741", "order_status": "Shipped"},
        [],
        "I want to return this order",
        "Your order #W2207741 has shipped but hasn't been delivered yet, so a return can't be started yet. Once it arrives, you can return it under My Orders > Return or exchange.",
    ),
]

NO_INVENT = [
    (
        "order_tracking",
        {"name": "Grace"},
        [],
        "when will my order arrive?",
        "Hi Grace! I don't have your order details in this chat, so I can't give you a date. Could you send me the order number?",
    ),
    (
        "order_tracking",
        {"order_id": "#W7035561", "order_status": "Shipped"},
        [],
        "exact delivery date?",
        "Your order #W7035561 has shipped, but I don't have a delivery date for it. My Orders > Track package, or the link in your shipping confirmation email, shows the latest from the courier.",
    ),
    (
        "order_tracking",
        {"order_id": "#W3928840", "order_status": "Pending"},
        [],
        "tracking number pls",
        "Your order #W3928840 is still pending, so there's no tracking number yet. It'll be in your shipping confirmation email once the order ships.",
    ),
    (
        "order_tracking",
        {"order_id": "#W6640183", "order_status": "In transit", "tracking_number": "9400118920337561"},
        [],
        "will it definitely arrive before christmas?",
        "Your order #W6640183 is in transit with tracking number 9400118920337561, but I don't have a delivery estimate, so I can't promise a date. Track package under My Orders shows its latest progress.",
    ),
    (
        "order_tracking",
        {"order_id": "#W5012768", "order_status": "Out for delivery"},
        [],
        "what time will the driver come",
        "Your order #W5012768 is out for delivery today, but I don't have a delivery time. The tracking page under My Orders > Track package shows the courier's latest update.",
    ),
    (
        "order_tracking",
        {},
        [],
        "@ExampleShop hey, @lou_bakes here 🙂 is my cake stand order on its way?",
        "Hi, thanks for reaching out! Could you send me your order number? It's the one detail we need to check your cake stand's delivery.",
    ),
    (
        "balance_usage_inquiry",
        {"balance": "€12.50"},
        [],
        "and how many points do I have?",
        "Your gift card and store credit balance is €12.50, but I don't have your points here. You'll see them under My Account > Points.",
    ),
    (
        "return_exchange",
        {"order_id": "#W8874402", "order_status": "Delivered"},
        [],
        "did you receive my return yet?",
        'I can see order #W8874402 was delivered to you, but I don\'t have the status of the return in this chat. Please reply "human agent" and a colleague will check whether it has arrived.',
    ),
    (
        "return_exchange",
        {},
        [],
        "returned the running shoes last week, is my refund approved?",
        "I can't see returns or refunds in this chat, so I can't confirm that. Please send me the order number and a colleague will check it for you.",
    ),
    (
        "product_presales_inquiry",
        {"item": "Bluetooth speaker"},
        [],
        "is it in stock and when can you deliver?",
        "Thanks for your interest in the Bluetooth speaker! Stock is shown on its product page, and the delivery options and costs for your address appear at checkout.",
    ),
    (
        "plan_change",
        {"plan": "Plus Monthly"},
        [],
        "when does my membership renew?",
        "You're on Plus Monthly, but I don't have the renewal date here. My Account > Subscriptions shows your subscription details and options.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W3301957", "order_status": "Delivered"},
        [],
        "the courier told me you'd refund my delivery fee because it came late",
        'Sorry it arrived late. I can\'t confirm a refund of the delivery fee, but a colleague can review it for order #W3301957: just reply "human agent".',
    ),
    (
        "billing_inquiry",
        {"bill_amount": "€54.00"},
        [],
        "why was I charged 54 euros, I used a coupon",
        "The amount charged was €54.00. The order's invoice under My Orders lists the item prices, delivery cost and any discount applied, so you can check whether the coupon was taken off.",
    ),
    (
        "order_cancel",
        {"name": "Theo"},
        [],
        "cancel the order i just made - theo_g",
        "Of course, Theo. Could you send me the order number? Orders can be cancelled only while they're still pending, so we'll check that first.",
    ),
    (
        "payment_issue",
        {},
        [],
        "did my payment go through? the page just froze",
        'Sorry about that. If the order went through, it will be listed in My Orders; if it isn\'t there and money has left your account, please reply "human agent" and a colleague will check the payment with you.',
    ),
]

RULES = {"ask_detail": ASK, "detail_given": GIVEN, "no_invented_facts": NO_INVENT}
