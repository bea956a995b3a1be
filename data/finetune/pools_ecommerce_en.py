"""Hand-written pools for e-commerce / English (Example Shop). See README.md.
Cores use only facts from the intent's guidance (prompts/ecommerce/en.yaml) and {placeholders} filled from
the conversation's context. Openers and closers carry no facts."""

DOMAIN, LANG, COMPANY = "ecommerce", "en", "Example Shop"
INTENT_POOLS = {}
HA_CLOSE = ["If it still doesn't work, reply \"human agent\" and we'll look into it.", ""]

INTENT_POOLS["order_tracking"] = dict(
    noise=["name"],
    close=["", "", "If it seems late or lost, let me know and I'll help."],
    subs=[
        dict(
            tone="q",
            msgs=[
                "where is my order?",
                "track my package",
                "when will my order arrive",
                "where's my parcel",
                "has my order shipped?",
                "any update on my delivery?",
                "how do i track my order",
                "I ordered shoes last week, where are they?",
                "tracking link?",
                "wheres my stuff",
                "can you check my order status",
                "my order hasn't updated in days, where can i see it",
                "I didn't get a shipping email, how do I track?",
            ],
            cores=[
                "You can follow your order step by step under My Orders > Track package on the Example Shop website or app, or with the tracking link in your shipping confirmation email.",
                "I don't have your order details in this chat, but My Orders > Track package on the website or app shows the latest status, and so does the link in your shipping confirmation email.",
                "The latest status and delivery estimate are under My Orders > Track package on the Example Shop website or app. The tracking link in your shipping confirmation email works too.",
                "Open My Orders on the Example Shop website or app and choose Track package to see where your order is; the shipping confirmation email has a tracking link as well.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            status="any",
            msgs=[
                "where is my order?",
                "order status please",
                "what's happening with order {order_id}?",
                "status of my order?",
                "can u check my order",
            ],
            cores=[
                "Your order {order_id} is currently: {order_status}.",
                "Order {order_id} shows as {order_status}.",
                "The status of your order {order_id} is: {order_status}.",
            ],
            tails=[
                "You can follow it step by step under My Orders > Track package on the Example Shop website or app.",
                "You can follow it under My Orders > Track package, or with the link in your shipping confirmation email.",
            ],
        ),
        dict(
            tone="q",
            status="shipped",
            msgs=[
                "when will my order arrive?",
                "delivery date?",
                "when's it coming",
                "how long until my parcel gets here",
                "ETA on my order?",
            ],
            cores=[
                "Your order {order_id} shows as {order_status}, and the estimated delivery is {delivery_eta}.",
                "Order {order_id} is on its way ({order_status}), with an estimated delivery of {delivery_eta}.",
                "The estimated delivery for order {order_id} is {delivery_eta}; it currently shows as {order_status}.",
            ],
            tails=[
                "You can follow it under My Orders > Track package.",
                "Your tracking number is {tracking_number}, and you can follow it under My Orders > Track package.",
                "",
            ],
        ),
        dict(
            tone="q",
            status="shipped",
            msgs=[
                "tracking number?",
                "can I get the tracking number for my order",
                "what's my tracking code",
                "send me the tracking no. pls",
            ],
            cores=[
                "Your tracking number is {tracking_number}.",
                "The tracking number for order {order_id} is {tracking_number}.",
                "Sure, order {order_id} has the tracking number {tracking_number}.",
            ],
            tails=[
                "You can also follow it under My Orders > Track package on the Example Shop website or app.",
                "The same details are in your shipping confirmation email.",
            ],
        ),
        dict(
            tone="q",
            status="pending",
            msgs=[
                "has my order shipped yet?",
                "why hasn't my order shipped",
                "is my order on the way?",
                "it's been days, has it been sent?",
            ],
            cores=[
                "Not yet: your order {order_id} still shows as {order_status}, so it hasn't shipped.",
                "Your order {order_id} shows as {order_status} at the moment, which means it hasn't shipped yet.",
            ],
            tails=[
                "Once it's on its way, you'll get a shipping confirmation email with a tracking link, and you can follow it under My Orders > Track package.",
                "You'll be able to follow it under My Orders > Track package once it ships.",
            ],
        ),
        dict(
            tone="q",
            status="delivered",
            msgs=["where is my order?", "has my order arrived?", "did my parcel get delivered"],
            cores=[
                "Your order {order_id} shows as {order_status}.",
                "Order {order_id} shows as {order_status}.",
            ],
            tails=[
                "If you can't find it, please check with neighbours, your building's reception or any safe place you chose, and let me know if it's still missing."
            ],
        ),
    ],
    follow=[
        (
            "hi, checking on an order",
            "Happy to help! Which order is it about?",
            "{order_id}",
            [
                "Thanks! Order {order_id} is currently: {order_status}. You can follow it under My Orders > Track package on the Example Shop website or app.",
                "Thank you. Your order {order_id} shows as {order_status}; you can follow it step by step under My Orders > Track package.",
            ],
            ["order_id", "order_status"],
        ),
        (
            "where's my order",
            "Your order {order_id} is currently: {order_status}.",
            "when will it get here?",
            [
                "The estimated delivery is {delivery_eta}. You can follow it under My Orders > Track package.",
                "It's estimated to arrive on {delivery_eta}; you can keep an eye on it under My Orders > Track package.",
            ],
            ["order_id", "order_status", "delivery_eta"],
        ),
    ],
)

INTENT_POOLS["delivery_problem"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="p",
            msgs=[
                "my package is late",
                "order says delivered but I don't have it",
                "parcel never arrived",
                "delivery is way overdue",
                "tracking hasn't moved in a week",
                "courier left it somewhere, can't find it",
                "it was supposed to arrive yesterday",
            ],
            cores=[
                "If it's running late, check the latest update under My Orders > Track package. If it shows as delivered but you can't find it, please check with neighbours, your building's reception or any safe place you chose.",
                "Please check the tracking page under My Orders > Track package for the latest update; if it says delivered, it's worth asking neighbours, your reception or checking any safe place you chose.",
                "First, have a look at My Orders > Track package for the latest update. If it's marked as delivered and you can't find it, check with your neighbours, building reception or your safe place.",
            ],
            close=[
                'If it still doesn\'t turn up, reply "human agent" and a colleague will review it with you.',
                "",
                "A colleague can review it with you if it's still missing.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "item arrived damaged",
                "wrong item in my box",
                "one item is missing from my order",
                "the vase came broken",
                "received the wrong size",
                "box was open and something's missing",
                "the colour is different from what I ordered",
                "my jacket arrived with a tear",
            ],
            cores=[
                "Please keep the packaging, take photos, and report it under My Orders > Report a problem; a colleague will review it with you.",
                "Keep the packaging and take a photo, then report it under My Orders > Report a problem, and a colleague will review it with you.",
                "Please hold on to the packaging, take some photos, and use My Orders > Report a problem to tell us about it; a colleague will then review it with you.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="p",
            status="delivered",
            msgs=[
                "my order never arrived",
                "it says delivered but nothing's here",
                "where is my parcel? not here",
            ],
            cores=[
                "Your order {order_id} shows as {order_status}, so please check with neighbours, your building's reception or any safe place you chose.",
                "Order {order_id} shows as {order_status}; it's worth checking with neighbours, reception or your safe place.",
            ],
            tails=[
                'If you still can\'t find it, reply "human agent" and a colleague will review it with you.',
                "If it's not there, a colleague can look into it with you.",
            ],
        ),
        dict(
            tone="p",
            status="shipped",
            msgs=[
                "my order is late",
                "delivery is taking forever",
                "should've been here by now",
                "still waiting on my order",
            ],
            cores=[
                "Your order {order_id} currently shows as {order_status}.",
                "Order {order_id} shows as {order_status} at the moment.",
                "Your order {order_id} shows as {order_status}, with an estimated delivery of {delivery_eta}.",
            ],
            tails=[
                "You can check the latest update under My Orders > Track package.",
                'Please check My Orders > Track package for updates, and if it doesn\'t arrive, reply "human agent".',
            ],
        ),
    ],
)

INTENT_POOLS["order_cancel"] = dict(
    noise=["name"],
    close=["", "", "Let me know if there's anything else I can help with."],
    subs=[
        dict(
            tone="q",
            msgs=[
                "how do I cancel my order?",
                "cancel order",
                "I ordered the wrong thing",
                "changed my mind, cancel please",
                "can I cancel an order after paying",
                "how long does a refund take if I cancel",
                "cancel my purchase",
            ],
            cores=[
                "An order can be cancelled only while it's still pending, before it ships: open My Orders, select the order, click Cancel order and choose a reason. The payment goes back to your original payment method, straight away for gift cards and usually within 5 to 7 business days for cards and PayPal.",
                "If your order hasn't shipped yet, go to My Orders, select it and click Cancel order, then choose a reason. Your money goes back to the original payment method: immediately for gift cards, usually 5 to 7 business days otherwise.",
                "You can cancel a pending order under My Orders > Cancel order. Once it has shipped, it can't be cancelled, but you can return it after delivery.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            status="pending",
            msgs=[
                "can I still cancel my order?",
                "cancel {order_id} please",
                "please cancel my order",
                "is it too late to cancel",
            ],
            cores=[
                "Yes, your order {order_id} still shows as {order_status}, so you can cancel it: open My Orders, select the order, click Cancel order and choose a reason.",
                "Good news, order {order_id} shows as {order_status}, so it can still be cancelled under My Orders > Cancel order.",
            ],
            tails=[
                "The payment goes back to your original payment method, straight away for gift cards and usually within 5 to 7 business days for cards and PayPal.",
                "Your money goes back to the original payment method.",
            ],
        ),
        dict(
            tone="p",
            status="shipped",
            msgs=["cancel my order", "I need to cancel order {order_id}", "can I still cancel?"],
            cores=[
                "I'm sorry, your order {order_id} already shows as {order_status}, so it can't be cancelled.",
                "Unfortunately order {order_id} shows as {order_status}, so it can no longer be cancelled.",
            ],
            tails=[
                "Once it arrives, you can return it under My Orders > Return or exchange.",
                "You can return it after it's been delivered.",
            ],
        ),
        dict(
            tone="p",
            status="delivered",
            msgs=["cancel my order please", "I don't want this order anymore"],
            cores=[
                "Your order {order_id} already shows as {order_status}, so it can't be cancelled, but you can return it under My Orders > Return or exchange, where you'll see whether each item is eligible."
            ],
            tails=[""],
        ),
    ],
)

INTENT_POOLS["order_modify"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="q",
            msgs=[
                "can I change my delivery address?",
                "want a different size",
                "change colour on my order",
                "update payment method for my order",
                "typo in my address",
                "can I edit my order",
                "swap the medium for a large",
            ],
            cores=[
                "While an order is still pending, you can change its delivery address, payment method, or the size or colour of an item (same product) under My Orders > Change order. Item changes can only be made once, so please make them all together; any price difference is charged or refunded.",
                "If your order hasn't shipped yet, go to My Orders > Change order to update the address, payment method or an item's size or colour. Once it has shipped, it can't be changed, but you can return or exchange items after delivery.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            status="pending",
            msgs=[
                "can I change the address on my order?",
                "I want a different colour",
                "need to change order {order_id}",
                "can I still change the size?",
            ],
            cores=[
                "Yes, your order {order_id} still shows as {order_status}, so you can change it under My Orders > Change order.",
                "Order {order_id} shows as {order_status}, so changes are still possible under My Orders > Change order.",
            ],
            tails=[
                "Item changes can only be made once, so please make them all together; any price difference is charged or refunded.",
                "Please make all item changes at once, as they can only be made once per order.",
            ],
        ),
        dict(
            tone="p",
            status="shipped",
            msgs=["change address on my order", "can I switch the size?", "edit order {order_id} please"],
            cores=[
                "I'm sorry, your order {order_id} already shows as {order_status}, so it can't be changed anymore.",
                "Unfortunately order {order_id} shows as {order_status}, so it can no longer be changed.",
            ],
            tails=[
                "After delivery, you can return or exchange items under My Orders.",
                "Once it arrives, you can exchange the item for another size or colour.",
            ],
        ),
    ],
)

INTENT_POOLS["return_exchange"] = dict(
    noise=["name"],
    close=["", "", 'For a warranty or repair question, reply "human agent".'],
    subs=[
        dict(
            tone="q",
            msgs=[
                "how do I return something?",
                "I want to exchange for a bigger size",
                "return policy?",
                "how many days do I have to return",
                "can I send this back",
                "want a different colour of the same top",
                "how do returns work",
                "do you do exchanges",
            ],
            cores=[
                "Once an order has been delivered, you can start a return or exchange under My Orders > Return or exchange, where you'll see whether each item is eligible. Exchanges are for the same product in another size or colour, and an email explains how to send the item back.",
                "Returns and exchanges can be started for delivered orders under My Orders > Return or exchange; the page shows whether each item is eligible. Refunds go to your original payment method or a gift card.",
                "Go to My Orders > Return or exchange once your order has arrived, and you'll see whether each item can be returned or exchanged. You'll then get an email explaining how to send it back.",
            ],
        ),
        dict(
            tone="q",
            msgs=["can I exchange for a different product?", "swap my lamp for another model?"],
            cores=[
                "Exchanges are for the same product in another size or colour, so for a different product you can return this one under My Orders > Return or exchange, if it's eligible, and place a new order."
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            status="delivered",
            msgs=[
                "I want to return my order",
                "can I exchange it?",
                "return order {order_id}",
                "the {item} doesn't fit, can I swap it?",
            ],
            cores=[
                "Your order {order_id} shows as {order_status}, so you can start a return or exchange under My Orders > Return or exchange.",
                "Since order {order_id} shows as {order_status}, you can return or exchange it under My Orders > Return or exchange.",
            ],
            tails=[
                "You'll see there whether each item is eligible, and an email will explain how to send it back.",
                "Any refund goes to your original payment method or a gift card.",
            ],
        ),
        dict(
            tone="q",
            status="shipped",
            msgs=["I want to return my order", "how do I return this order"],
            cores=[
                "Your order {order_id} still shows as {order_status}, and returns can be started once it's delivered."
            ],
            tails=["After it arrives, go to My Orders > Return or exchange."],
        ),
    ],
)

INTENT_POOLS["payment_issue"] = dict(
    noise=["name"],
    close=["", "For your security, never type your full card number or security code in this chat."],
    subs=[
        dict(
            tone="p",
            msgs=[
                "payment declined",
                "card not working at checkout",
                "checkout keeps failing",
                "my payment won't go through",
                "error when paying",
                "transaction failed twice",
            ],
            cores=[
                "Please re-enter your card details carefully, check the card's expiry date and available funds, and try again, or choose another payment method at checkout.",
                "First, re-enter the card details and check the expiry date and funds; if it keeps failing, sign out and back in, or pick another payment method at checkout.",
                "Try re-entering your card details and checking that the card hasn't expired and has enough funds. Signing out and back in, or choosing another payment method, often helps too.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "how do I change my saved card?",
                "remove a card from my account",
                "can I pay with paypal",
                "change payment method on my order",
                "what payment methods do you take",
            ],
            cores=[
                "You can manage saved cards under My Account > Payment methods, and for an order that hasn't shipped yet, change its payment method in My Orders.",
                "The payment methods available for an order are shown at checkout. Saved cards are managed under My Account > Payment methods.",
            ],
        ),
    ],
)

INTENT_POOLS["billing_inquiry"] = dict(
    noise=["name"],
    close=[
        "",
        'If something doesn\'t look right, reply "human agent" and a colleague will go through it with you.',
    ],
    subs=[
        dict(
            tone="q",
            msgs=[
                "I need an invoice",
                "where's my receipt",
                "how do I get a VAT invoice",
                "why was I charged this amount",
                "can I download my invoice",
                "what's included in the total I paid?",
                "receipt for warranty",
            ],
            cores=[
                "You can view and download the invoice under My Orders on the Example Shop website or app: select the order and click Invoice. It shows each item's price, the delivery cost, any discounts and the total charged.",
                "Open My Orders, select the order and click Invoice; it lists the item prices, delivery cost, discounts and the total.",
                "Your invoice is under My Orders > select the order > Invoice, with each item's price, the delivery cost, discounts and the total charged.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "how much did I pay for my order?",
                "what was the total for order {order_id}?",
                "how much was I charged",
                "invoice amount please",
            ],
            cores=[
                "You were charged {bill_amount} for order {order_id}.",
                "The total for order {order_id} was {bill_amount}.",
            ],
            tails=[
                "You can download the invoice under My Orders: select the order and click Invoice.",
                "The invoice, with the item prices, delivery cost and discounts, is under My Orders > Invoice.",
            ],
        ),
        dict(
            tone="q",
            msgs=["I need the invoice for my last order", "receipt for {order_id}?"],
            cores=[
                "For order {order_id}, you can view and download the invoice under My Orders: select the order and click Invoice."
            ],
            tails=["It shows each item's price, the delivery cost, any discounts and the total charged."],
        ),
    ],
)

INTENT_POOLS["balance_usage_inquiry"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="q",
            msgs=[
                "how much is on my gift card?",
                "check my store credit",
                "gift card balance?",
                "where can I see my credit",
            ],
            cores=[
                "You can see your gift card and store credit balance at any time under My Account > Gift cards & credit.",
                "Your gift card and store credit balance is shown under My Account > Gift cards & credit on the Example Shop website or app.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "how much data do I have left",
                "check my phone credit",
                "how many minutes left",
                "my mobile balance?",
            ],
            cores=[
                "Sorry, Example Shop is an online shop rather than a mobile operator, so we can't see your phone credit or data; please check with your mobile operator.",
                "I'm sorry, but Example Shop can't see or change phone credit, data or minutes: your mobile operator can help with that.",
            ],
            close=[
                "",
                "If you meant your Example Shop gift card, you'll find it under My Account > Gift cards & credit.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "how much is left on my gift card?",
                "store credit balance?",
                "do I have any credit left?",
                "what's my balance",
            ],
            cores=[
                "Your Example Shop gift card and store credit balance is {balance}.",
                "You have {balance} in gift card and store credit.",
            ],
            tails=[
                "You can check it any time under My Account > Gift cards & credit.",
                "It's always shown under My Account > Gift cards & credit.",
            ],
        ),
    ],
)

INTENT_POOLS["pay_bill_topup"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="q",
            msgs=[
                "how do I add a gift card?",
                "redeem gift card",
                "where do I pay for my order",
                "can I use a gift card on my order",
            ],
            cores=[
                "You can add a gift card under My Account > Gift cards, and its balance can then be used on future orders.",
                "Orders are paid at checkout, and you can add a gift card under My Account > Gift cards so its balance can be used on future orders.",
            ],
        ),
        dict(
            tone="q",
            msgs=["top up my phone", "pay my phone bill", "can I recharge my mobile here"],
            cores=[
                "Sorry, Example Shop can't help with phone bills or mobile top-ups: please contact your mobile operator.",
                "I'm sorry, but phone bills and mobile top-ups aren't something Example Shop can help with; your mobile operator can.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=["how much is on my gift card and how do I use it?", "add gift card, what's my balance now"],
            cores=["Your current balance is {balance}.", "You have {balance} on your account."],
            tails=[
                "You can add another gift card under My Account > Gift cards, and the balance can be used on future orders."
            ],
        ),
    ],
)

INTENT_POOLS["promo_coupon_pricing"] = dict(
    noise=["name"],
    close=["", 'For a price drop or price match, reply "human agent" and a colleague will look into it.'],
    subs=[
        dict(
            tone="p",
            msgs=[
                "my coupon doesn't work",
                "promo code invalid",
                "discount code not applying",
                "code says expired",
                "the voucher won't go through",
            ],
            cores=[
                "Please check the code's expiry date and conditions (eligible items, minimum spend) in the offer details, and enter it exactly as shown at checkout before you pay.",
                "Codes only apply if they haven't expired and your order meets the conditions, such as eligible items and minimum spend, so please check the offer details and enter the code exactly as shown at checkout.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "price dropped after I bought it",
                "do you price match?",
                "can I add my code to an order I placed",
                "my referral credit never showed up",
            ],
            cores=[
                'I can\'t promise a price adjustment in this chat, but a colleague can review it: just reply "human agent".',
                'A code can\'t be added to an order after it has been placed, and price matches or missing referral credits are reviewed by a colleague, so please reply "human agent".',
            ],
            close=[""],
        ),
    ],
)

INTENT_POOLS["product_presales_inquiry"] = dict(
    noise=["name"],
    close=["", 'If you\'d like help choosing, reply "human agent" and a colleague will be happy to advise.'],
    subs=[
        dict(
            tone="q",
            msgs=[
                "is this in stock?",
                "what sizes does it come in",
                "how much is delivery",
                "do you deliver to my area",
                "what's the material",
                "how do I order",
                "when will it be back in stock",
            ],
            cores=[
                "The product page on the Example Shop website or app shows the current price, sizes or colours, stock and full details. For delivery options and costs, add the item to your cart and enter your address at checkout.",
                "Each product page shows its price, available sizes and colours, stock and details, and checkout shows the delivery options and costs for your address.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "is the {item} in stock?",
                "what sizes does the {item} come in",
                "how fast can you deliver the {item}?",
                "tell me about the {item}",
            ],
            cores=[
                "The product page for the {item} shows its current price, available sizes or colours, stock and full details.",
                "You'll find the price, stock and details for the {item} on its product page.",
            ],
            tails=[
                "To see delivery options and costs, add it to your cart and enter your address at checkout.",
                "",
            ],
        ),
    ],
)

INTENT_POOLS["account_manage"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="q",
            msgs=[
                "change my default address",
                "update my phone number",
                "unsubscribe from newsletters",
                "change my name on the account",
                "stop promo emails",
            ],
            cores=[
                "You can update your name, phone number, default delivery address and newsletter preferences under My Account on the Example Shop website or app; changes apply as soon as you save them.",
                "Those details are under My Account (Profile, Addresses or Communication preferences), and changes apply as soon as you save.",
            ],
        ),
        dict(
            tone="q",
            msgs=["close my account", "change the email I log in with", "delete my account"],
            cores=[
                'To close your account or change the email you sign in with, reply "human agent" and a colleague will verify your identity and help.'
            ],
        ),
    ],
)

INTENT_POOLS["app_website_issue"] = dict(
    noise=["name"],
    close=HA_CLOSE,
    subs=[
        dict(
            tone="p",
            msgs=[
                "site won't load",
                "cart is not updating",
                "search shows nothing",
                "app keeps crashing",
                "pages are super slow",
                "checkout page frozen",
                "error when adding to cart",
            ],
            cores=[
                "Please refresh the page and try again, then sign out and back in.",
                "Try clearing your browser's cookies and cache, or update the app to the latest version.",
                "If other websites are slow too, it may be your connection; otherwise refresh the page and sign out and back in.",
                "Close other tabs and refresh the page; if an item won't go into your cart, check whether it shows as out of stock.",
            ],
        ),
    ],
)

INTENT_POOLS["plan_change"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="q",
            msgs=[
                "upgrade my membership",
                "switch to annual subscription",
                "change my subscription",
                "how much is premium",
            ],
            cores=[
                "You can change your Example Shop subscription or membership under My Account > Subscriptions, where the available options and their prices are shown before you confirm."
            ],
        ),
        dict(
            tone="q",
            msgs=["change my phone plan", "I want more mobile data on my plan"],
            cores=[
                "Example Shop doesn't sell phone plans, so your mobile operator is the right place for that. If you meant your Example Shop membership, it's under My Account > Subscriptions."
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "what membership do I have?",
                "which subscription am I on?",
                "I want to change my subscription",
            ],
            cores=["You're currently on {plan}.", "Your membership is {plan}."],
            tails=[
                "To change it, go to My Account > Subscriptions, where the options and prices are shown before you confirm."
            ],
        ),
    ],
)

INTENT_POOLS["network_fault"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="p",
            msgs=[
                "no signal on my phone",
                "my internet is down",
                "mobile data not working",
                "wifi keeps dropping",
            ],
            cores=[
                "I'm sorry, but Example Shop can't help with mobile signal, data or home internet problems: your mobile or internet provider is the right place for that."
            ],
        ),
        dict(
            tone="p",
            msgs=["your website won't load", "app won't open on my phone"],
            cores=[
                "Please try refreshing the page, checking whether other websites work, clearing your browser's cache or updating the app.",
                "Refresh the page and check whether other websites load; if they do, clear your browser's cache or update the app.",
            ],
            close=['If it still doesn\'t work, reply "human agent".', ""],
        ),
    ],
)

INTENT_POOLS["roaming_international"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="q",
            msgs=["how do I turn on roaming", "international calls from my phone?", "roaming charges?"],
            cores=[
                "I'm sorry, but Example Shop can't help with roaming or international calls: please contact your mobile operator for that."
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "do you ship internationally",
                "can you deliver to Germany",
                "shipping to the UK cost?",
                "do you deliver abroad",
            ],
            cores=[
                "Enter the delivery address at checkout and you'll see whether we deliver there, along with the delivery options and costs.",
                "The countries we deliver to, and the delivery costs, are shown at checkout once you enter the address.",
            ],
        ),
    ],
)

INTENT_POOLS["sim_device"] = dict(
    noise=["name"],
    close=["", ""],
    subs=[
        dict(
            tone="p",
            msgs=[
                "lost my phone",
                "phone stolen, block my sim",
                "need a new sim card",
                "how do I activate eSIM",
            ],
            cores=[
                "SIM cards, eSIMs and phone numbers are managed by your mobile operator rather than Example Shop. If your phone has been lost or stolen, please contact them straight away to block your SIM."
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "the phone I bought from you is faulty",
                "my new tablet won't turn on",
                "headphones from your shop stopped working",
            ],
            cores=[
                'Since you bought it from us, you can open the order in My Orders and choose Return or exchange, or reply "human agent" for help with a warranty repair.'
            ],
        ),
    ],
)

INTENT_POOLS["greeting_chitchat"] = dict(
    noise=[],
    close=[""],
    subs=[
        dict(
            tone="g",
            msgs=["hi", "hello", "hey", "good morning", "anyone there?", "hiya", "good afternoon"],
            cores=[
                "Hi, and thanks for contacting Example Shop! How can I help you today?",
                "Hello! I'm the Example Shop virtual assistant. What can I do for you?",
                "Hi there! Thanks for getting in touch with Example Shop. What can I help you with?",
                "Yes, I'm here! Thanks for contacting Example Shop. How can I help?",
            ],
        ),
        dict(
            tone="g",
            msgs=["thanks", "thank you so much", "bye", "great, that's all", "cheers!", "thx"],
            cores=[
                "You're welcome! Thanks for shopping with Example Shop.",
                "Happy to help. Have a lovely day!",
                "You're very welcome, take care!",
                "Glad I could help! Goodbye for now.",
            ],
        ),
        dict(
            tone="g",
            msgs=["are you a bot?", "is this a real person?", "what can you help with?"],
            cores=[
                "I'm the Example Shop virtual assistant, not a person. I can help with tracking, changing or cancelling orders, delivery problems, returns and refunds, payments, coupons and product questions.",
                "I'm Example Shop's virtual assistant rather than a human. I can help with orders, delivery problems, returns and refunds, payments, coupons and product questions.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="g",
            msgs=["hi", "hello!", "hey there"],
            cores=[
                "Hi {name}, thanks for contacting Example Shop! How can I help today?",
                "Hello {name}! What can I do for you today?",
            ],
            tails=[""],
        ),
        dict(
            tone="g",
            msgs=["thanks, bye", "thank you!"],
            cores=["You're welcome, {name}! Have a great day.", "Glad I could help, {name}. Take care!"],
            tails=[""],
        ),
    ],
)

GREET = [
    ("hi", "Hi! Thanks for contacting Example Shop. How can I help?"),
    ("hello", "Hello, and thanks for getting in touch with Example Shop! What can I do for you?"),
    ("hey", "Hi there! How can I help you today?"),
]
ASK_WHICH = [
    "Happy to help! Which order is it about?",
    "Of course. Could you tell me the order number?",
    "Sure, which order is it?",
    "I can help with that. Which order do you mean?",
]
BARE_ID = ["{order_id}", "it's {order_id}", "order {order_id}", "{order_id} thanks", "number is {order_id}"]
THANKS_LEAD = ["Thanks!", "Thank you.", "Thanks for that.", "Got it, thanks."]
THANKS = [
    "thanks!",
    "great, thank you",
    "ok cheers",
    "perfect, that's all",
    "thanks a lot, bye",
    "got it, thanks",
]
BYE_REPLIES = [
    "You're welcome! Have a great day.",
    "Glad I could help. Take care!",
    "You're very welcome, and thanks for shopping with Example Shop.",
    "Happy to help! Have a lovely day.",
    "Any time! Thanks for contacting Example Shop.",
    "You're welcome. Enjoy the rest of your day!",
]
BYE2 = [
    "",
    "If anything else comes up, just message us here.",
    "Enjoy your order!",
    "We're here whenever you need us.",
]
ALSO = ["also, ", "one more thing: ", "another question, ", "ok and ", "thanks. and ", "and "]
OPEN = {
    "g": [""],
    "n": ["", "", "Thanks for asking. ", "I understand. "],
    "q": ["", "", "", "Sure! ", "Happy to help. ", "Of course. ", "Sure thing. "],
    "p": [
        "Sorry about that. ",
        "I'm sorry to hear that. ",
        "Sorry for the trouble. ",
        "I'm sorry, that's frustrating. ",
        "Thanks for letting us know, and sorry for the hassle. ",
        "",
    ],
}
NAME_OPEN = {
    "g": [""],
    "n": ["Hi {name}. ", "Thanks, {name}. "],
    "q": [
        "Hi {name}! ",
        "Hi {name}, happy to help. ",
        "Thanks for getting in touch, {name}. ",
        "Hello {name}. ",
    ],
    "p": [
        "Sorry about that, {name}. ",
        "I'm sorry to hear that, {name}. ",
        "Sorry for the trouble, {name}. ",
    ],
}
PREFIX = ["", "", "", "", "hi, ", "hello, ", "quick question: ", "hey ", "Hi there! ", "excuse me, "]
SUFFIX = ["", "", "", "", " thanks", " please", "?", " thx", " asap please", " thank you!"]

# ---- fully hand-written conversations: (intent, context, history turns [user, assistant, ...], message, reply)
HAND = [
    (
        "order_tracking",
        {
            "order_id": "#W3817264",
            "order_status": "Shipped",
            "delivery_eta": "2026-12-10",
            "tracking_number": "1Z999AA10393817264",
        },
        [],
        "Hiya! Just wondering when my duvet cover will turn up?",
        "Your order #W3817264 has shipped, and the estimated delivery is 2026-12-10. Your tracking number is 1Z999AA10393817264, and you can follow it under My Orders > Track package.",
    ),
    (
        "order_tracking",
        {"order_id": "#W5550981", "order_status": "Pending"},
        [],
        "ordered 4 days ago and it still hasnt shipped, what's the holdup",
        "Sorry for the wait. Your order #W5550981 is still pending, so it hasn't shipped yet; you'll get a shipping confirmation email with a tracking link as soon as it's on its way.",
    ),
    (
        "order_tracking",
        {"order_id": "#W7104432", "order_status": "Out for delivery"},
        [],
        "is it coming today? need to know if I should stay in",
        "Your order #W7104432 is out for delivery, so it's on its way to you. You can follow its progress under My Orders > Track package.",
    ),
    (
        "order_tracking",
        {"tracking_number": "TBA30418872215"},
        [],
        "pls send tracking",
        "Sure, your tracking number is TBA30418872215. You can also follow it under My Orders > Track package on the Example Shop website or app.",
    ),
    (
        "order_tracking",
        {},
        [],
        "I ordered as a guest, how do I track?",
        "You can follow your order with the tracking link in your shipping confirmation email. If you have an account, it's also under My Orders > Track package on the Example Shop website or app.",
    ),
    (
        "order_tracking",
        {"order_id": "#W6023319", "order_status": "In transit", "delivery_eta": "December 12"},
        ["where's my stuff", "Happy to help! Which order is it about?"],
        "the yoga mat one, W6023319",
        "Thanks! Order #W6023319 is in transit, with an estimated delivery of December 12. You can follow it under My Orders > Track package.",
    ),
    (
        "order_tracking",
        {"order_id": "#W1209985", "order_status": "Delivered"},
        [],
        "my order status?",
        "Your order #W1209985 shows as delivered. If you haven't found it, please check with neighbours, your building's reception or any safe place you chose.",
    ),
    (
        "order_tracking",
        {},
        [],
        "Bonjour, is my order on its way? I bought a jacket last week",
        "You can see whether your jacket is on its way under My Orders > Track package on the Example Shop website or app, or with the tracking link in your shipping confirmation email.",
    ),
    (
        "order_tracking",
        {"order_id": "#W8873001", "order_status": "Shipped", "delivery_eta": "2026-12-06"},
        ["where is order W8873001", "Your order #W8873001 has shipped."],
        "ok but when does it arrive",
        "The estimated delivery is 2026-12-06. You can keep an eye on it under My Orders > Track package.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "box arrived soaking wet and the book inside is ruined",
        "I'm sorry your book arrived damaged. Please keep the packaging, take photos, and report it under My Orders > Report a problem; a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W4491207", "order_status": "Delivered"},
        [],
        "Your driver says he left it but there's no parcel anywhere. I checked with my neighbours already.",
        "I'm sorry, that's really frustrating. Your order #W4491207 shows as delivered; if you chose a safe place or your building has a reception, please check there too. If it's still missing, reply \"human agent\" and a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "only got 2 of the 3 things i ordered",
        "Sorry an item is missing. Please keep the packaging, take a photo, and report it under My Orders > Report a problem, and a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W3371108", "order_status": "In transit"},
        [],
        "my parcel has been 'in transit' for a week, this is ridiculous",
        "I'm sorry it's taking so long. Your order #W3371108 still shows as in transit; you can check for the latest update under My Orders > Track package. If there's no progress, reply \"human agent\" and a colleague will look into it.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "received someone else's order",
        "Sorry about the mix-up. Please keep the packaging, take a photo, and report it under My Orders > Report a problem, and a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {"name": "Priscilla"},
        [],
        "The mixer arrived but the bowl has a big crack in it.",
        "I'm so sorry, Priscilla. Please keep the packaging, take photos of the crack, and report it under My Orders > Report a problem; a colleague will review it with you.",
    ),
    (
        "order_cancel",
        {"order_id": "#W2208871", "order_status": "Pending"},
        [],
        "Accidentally ordered two of the same scarf, can I cancel one?",
        "Your order #W2208871 is still pending, so it can be cancelled under My Orders > Cancel order. The payment goes back to your original payment method, straight away for gift cards and usually within 5 to 7 business days for cards and PayPal.",
    ),
    (
        "order_cancel",
        {"order_id": "#W9912034", "order_status": "Shipped"},
        [],
        "pls cancel i dont need it anymore",
        "I'm sorry, your order #W9912034 has already shipped, so it can't be cancelled. Once it arrives, you can return it under My Orders > Return or exchange.",
    ),
    (
        "order_cancel",
        {},
        [],
        "I paid with a gift card, if I cancel when do I get it back?",
        "If you cancel a pending order that was paid with a gift card, the money goes back to the gift card straight away. You can cancel under My Orders > Cancel order.",
    ),
    (
        "order_cancel",
        {},
        [],
        "can you cancel it for me? don't know how",
        "Of course, it's quick: open My Orders on the Example Shop website or app, select the order, click Cancel order and choose a reason. This works while the order is still pending, before it ships.",
    ),
    (
        "order_cancel",
        {"order_id": "#W6658120", "order_status": "Pending"},
        ["i need to cancel", "I can help with that. Which order do you mean?"],
        "#W6658120",
        "Thanks! Order #W6658120 is still pending, so you can cancel it under My Orders > Cancel order and choose a reason. Your money goes back to the original payment method.",
    ),
    (
        "order_modify",
        {"order_id": "#W7740016", "order_status": "Pending"},
        [],
        "ordered size 8 shoes but need 9, can I fix that?",
        "Yes, your order #W7740016 is still pending, so you can change the size under My Orders > Change order. Item changes can only be made once, so please make any other changes at the same time.",
    ),
    (
        "order_modify",
        {},
        [],
        "can I change the delivery address to my office",
        "If your order hasn't shipped yet, you can change the delivery address under My Orders > Change order on the Example Shop website or app.",
    ),
    (
        "order_modify",
        {"order_id": "#W1123470", "order_status": "Out for delivery"},
        [],
        "can i still change the colour?",
        "I'm sorry, your order #W1123470 is already out for delivery, so it can't be changed now. Once it arrives, you can exchange it for another colour under My Orders > Return or exchange.",
    ),
    (
        "order_modify",
        {},
        [],
        "if i switch to the more expensive colour do i pay the difference?",
        "Yes, when you change an item's colour or size under My Orders > Change order, any price difference is charged or refunded. This works while the order is still pending.",
    ),
    (
        "return_exchange",
        {"order_id": "#W5067713", "order_status": "Delivered", "item": "denim jacket"},
        [],
        "the jacket is too big, can I get a smaller one?",
        "Your order #W5067713 has been delivered, so you can exchange the denim jacket for another size under My Orders > Return or exchange, where you'll see whether it's eligible. An email will then explain how to send it back.",
    ),
    (
        "return_exchange",
        {},
        [],
        "do i pay for return shipping?",
        "When you start a return under My Orders > Return or exchange, the page shows whether the item is eligible, and you'll then get an email explaining how to send it back. If anything there isn't clear, a human agent can help.",
    ),
    (
        "return_exchange",
        {},
        [],
        "Can I get store credit instead of a refund to my card?",
        "Refunds go to your original payment method or a gift card; you'll see the options when you start the return under My Orders > Return or exchange.",
    ),
    (
        "return_exchange",
        {},
        [],
        "speaker stopped working after a month",
        'Sorry to hear that. For a warranty or repair question, please reply "human agent" and a colleague will help.',
    ),
    (
        "return_exchange",
        {"order_id": "#W2875540", "order_status": "Pending"},
        [],
        "i want to return my order",
        "Your order #W2875540 is still pending and hasn't shipped yet, so it can't be returned, but it can still be cancelled under My Orders > Cancel order.",
    ),
    (
        "payment_issue",
        {},
        [],
        "why does it say payment could not be processed",
        "Sorry about that. Please re-enter your card details carefully and check the expiry date and available funds; if it still fails, sign out and back in or choose another payment method at checkout.",
    ),
    (
        "payment_issue",
        {"order_id": "#W4418802", "order_status": "Pending"},
        [],
        "I want to use a different card for my order",
        "Your order #W4418802 is still pending, so you can change its payment method in My Orders. Please don't type card details in this chat.",
    ),
    (
        "payment_issue",
        {},
        [],
        "Do you take Apple Pay?",
        "The payment methods available for your order are shown at checkout, so you'll see there whether Apple Pay is an option.",
    ),
    (
        "billing_inquiry",
        {"order_id": "#W3006641", "bill_amount": "$129.50"},
        [],
        "what did I pay for #W3006641? it seems a lot",
        "You were charged $129.50 for order #W3006641. The invoice under My Orders shows each item's price, the delivery cost, any discounts and the total, so you can see exactly what makes it up.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "need invoice with my company name on it",
        'You can download the invoice for each order under My Orders: select the order and click Invoice. If you need something that isn\'t shown there, reply "human agent" and a colleague will help.',
    ),
    (
        "billing_inquiry",
        {},
        [],
        "was I charged for delivery?",
        "The invoice for your order shows the delivery cost along with item prices, discounts and the total. You'll find it under My Orders: select the order and click Invoice.",
    ),
    (
        "balance_usage_inquiry",
        {"balance": "$112.00", "name": "Derek"},
        [],
        "How much gift card money do I have left?",
        "Hi Derek, your gift card and store credit balance is $112.00. You can see it any time under My Account > Gift cards & credit.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [],
        "I need to check my phone minutes",
        "Sorry, Example Shop is an online shop, so we can't see phone minutes: your mobile operator can help with that. If you meant your Example Shop gift card, you'll find it under My Account > Gift cards & credit.",
    ),
    (
        "balance_usage_inquiry",
        {"balance": "$0.00"},
        [],
        "did my gift card get used up?",
        "Yes, your gift card and store credit balance is $0.00. You can always check it under My Account > Gift cards & credit.",
    ),
    (
        "pay_bill_topup",
        {},
        [],
        "can i pay in instalments",
        "The payment options available for your order are shown at checkout, so you'll see there whether instalments are offered for it.",
    ),
    (
        "pay_bill_topup",
        {"balance": "$40.00"},
        [],
        "added my gift card, is it there?",
        "Yes, your current balance is $40.00, and it can be used on your future orders. You can see it any time under My Account > Gift cards & credit.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "The coupon says minimum spend but I'm over it?",
        'Sorry about that. Please check whether all the items in your cart are eligible for the offer, as only eligible items may count towards the minimum spend, and enter the code exactly as shown at checkout. If it still won\'t apply, reply "human agent".',
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "the sofa dropped in price the day after I bought it!",
        'I understand how annoying that is. I can\'t adjust prices in this chat, but a colleague can review it: just reply "human agent".',
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "do you have any discount codes?",
        "I can't give out codes in this chat, but any current offers and their conditions are shown in the offer details. If you have a code, enter it at checkout before you pay.",
    ),
    (
        "product_presales_inquiry",
        {"item": "stand mixer"},
        [],
        "what's the warranty on the stand mixer?",
        'The full details for the stand mixer are on its product page on the Example Shop website or app. For a specific warranty question, reply "human agent" and a colleague will be happy to help.',
    ),
    (
        "product_presales_inquiry",
        {},
        [],
        "will the black boots be restocked in size 7?",
        'The product page shows the current sizes and stock for the boots, so please check there. If you\'d like a colleague to help, reply "human agent".',
    ),
    (
        "product_presales_inquiry",
        {},
        [],
        "how much is shipping to Scotland",
        "Add the item to your cart and enter your Scottish address at checkout, and you'll see the delivery options and costs for it.",
    ),
    (
        "account_manage",
        {},
        [],
        "how do I add a second delivery address",
        "You can add and manage delivery addresses under My Account > Addresses on the Example Shop website or app.",
    ),
    (
        "account_manage",
        {},
        [],
        "I changed my default address but my order is still going to the old one",
        "Changing your default address doesn't change orders that have already been placed. If the order is still pending, you can update its address under My Orders > Change order.",
    ),
    (
        "app_website_issue",
        {},
        [],
        "promo banner link goes to a blank page",
        "Sorry about that. Please refresh the page, and if it's still blank, clear your browser's cookies and cache or try the app. If it still doesn't work, reply \"human agent\" and we'll look into it.",
    ),
    (
        "app_website_issue",
        {},
        ["site's really slow", "Sorry about that! Do other websites load normally for you?"],
        "yes everything else is fine",
        "Thanks, so it's not your connection. Please close other tabs, clear your browser's cookies and cache, and refresh; if it's still slow, reply \"human agent\" and we'll look into it.",
    ),
    (
        "plan_change",
        {"plan": "Premium Monthly"},
        [],
        "switch me to yearly please",
        "You're currently on Premium Monthly. You can change it under My Account > Subscriptions, where the yearly option and its price are shown before you confirm.",
    ),
    (
        "network_fault",
        {},
        [],
        "my home wifi is super slow since yesterday",
        "I'm sorry, but Example Shop can't help with home internet problems: your internet provider is the right place for that. If it's our website or app that's not loading, I'm happy to help.",
    ),
    (
        "roaming_international",
        {},
        [],
        "I'm in Spain, can I order to my hotel here?",
        "Enter the hotel's address at checkout and you'll see whether we deliver there, along with the delivery options and costs.",
    ),
    (
        "sim_device",
        {},
        [],
        "can you send me a new sim card?",
        "I'm sorry, Example Shop can't provide SIM cards: SIM cards, eSIMs and phone numbers are managed by your mobile operator.",
    ),
    (
        "sim_device",
        {"order_id": "#W7765290"},
        [],
        "the phone I bought from you won't turn on",
        'Sorry to hear that. Since you bought it from us, you can open order #W7765290 in My Orders and choose Return or exchange, or reply "human agent" for help with a warranty repair.',
    ),
    (
        "greeting_chitchat",
        {},
        [],
        "hey, is this where I ask about orders?",
        "Hi! Yes, I'm the Example Shop virtual assistant, and I can help with orders, delivery, returns and refunds, payments, coupons and product questions. What do you need?",
    ),
    (
        "greeting_chitchat",
        {"name": "Rosa"},
        ["where's my order", "You can follow your order under My Orders > Track package."],
        "found it, thanks so much!",
        "Great news, Rosa! Happy to help, and enjoy your order.",
    ),
]

INTENT_POOLS["roaming_international"]["subs"][0]["msgs"] += [
    "my phone doesn't work abroad",
    "need roaming for my trip",
    "can you activate roaming on my number",
]
INTENT_POOLS["roaming_international"]["subs"][0]["cores"] += [
    "Roaming and international calls are handled by your mobile operator rather than Example Shop, so they're the right people to ask.",
    "That's one for your mobile operator, I'm afraid: Example Shop can't help with roaming or international calls.",
]
INTENT_POOLS["roaming_international"]["subs"][0]["close"] = [
    "",
    "If you're asking about delivery abroad, the countries we deliver to are shown at checkout once you enter the address.",
]
INTENT_POOLS["roaming_international"]["subs"][1]["msgs"] += [
    "can I send a gift to my sister in France",
    "international shipping available?",
    "delivery to Ireland?",
]
INTENT_POOLS["roaming_international"]["subs"][1]["cores"] += [
    "Add the item to your cart and enter the overseas address at checkout: you'll see whether we deliver there and the delivery options and costs."
]
INTENT_POOLS["sim_device"]["subs"][0]["cores"] += [
    "I'm sorry, but SIM cards, eSIMs and phone numbers are handled by your mobile operator, so please contact them; for a lost or stolen phone, do it straight away so they can block your SIM."
]
INTENT_POOLS["network_fault"]["subs"][0]["cores"] += [
    "That's one for your mobile or internet provider, I'm afraid, as Example Shop can't fix signal, data or broadband problems."
]
INTENT_POOLS["plan_change"]["subs"][0]["cores"] += [
    "Head to My Account > Subscriptions on the Example Shop website or app; the membership options and their prices are shown there before you confirm anything."
]
INTENT_POOLS["plan_change"]["subs"][1]["cores"] += [
    "I'm sorry, but phone plans are managed by your mobile operator, not Example Shop, so please contact them."
]

INTENT_POOLS["sim_device"]["subs"][0]["msgs"] += [
    "my phone got stolen",
    "transfer my number to a new phone",
    "need a PUK code",
    "sim card not working",
]
INTENT_POOLS["sim_device"]["subs"][0]["cores"] += [
    "I'm sorry, but SIM cards, eSIMs and phone numbers are handled by your mobile operator, so they're the right people to contact. If the phone was lost or stolen, please call them straight away to block the SIM.",
    "That's handled by your mobile operator rather than Example Shop, I'm afraid. For a lost or stolen phone, contact them at once so they can block your SIM.",
]
INTENT_POOLS["sim_device"]["subs"][1]["msgs"] += [
    "smartwatch from your store won't charge",
    "the laptop I ordered has a dead pixel",
    "my e-reader from you keeps freezing",
]
INTENT_POOLS["sim_device"]["subs"][1]["cores"] += [
    'As it was bought from Example Shop, you can open the order in My Orders and choose Return or exchange; for a warranty repair, reply "human agent" and a colleague will help.',
    'You can start a return or exchange for it in My Orders, or reply "human agent" if you\'d like help with a warranty repair instead.',
]
INTENT_POOLS["promo_coupon_pricing"]["subs"][1]["tone"] = "n"
INTENT_POOLS["balance_usage_inquiry"]["subs"][1]["tone"] = "n"
INTENT_POOLS["pay_bill_topup"]["subs"][1]["tone"] = "n"
INTENT_POOLS["plan_change"]["subs"][1]["tone"] = "n"
INTENT_POOLS["roaming_international"]["subs"][0]["tone"] = "n"
INTENT_POOLS["return_exchange"]["cf"][1]["tone"] = "n"
INTENT_POOLS["order_tracking"]["cf"][3]["tone"] = "n"

HAND += [
    (
        "order_tracking",
        {"order_id": "#W2750113", "order_status": "Shipped", "delivery_eta": "2026-12-09"},
        [],
        "hello!! I ordered a birthday gift and the party's on the 10th, will it make it?",
        "Your order #W2750113 has shipped, and the estimated delivery is 2026-12-09, the day before the party. You can keep an eye on it under My Orders > Track package.",
    ),
    (
        "order_tracking",
        {},
        [],
        "the tracking link in the email doesn't work",
        "Sorry about that. You can also follow your order under My Orders > Track package on the Example Shop website or app, which shows the same tracking details.",
    ),
    (
        "order_tracking",
        {"order_id": "#W8016240", "order_status": "In transit"},
        ["track order", "Sure, which order is it?"],
        "W8016240",
        "Thanks! Order #W8016240 is in transit. You can follow it step by step under My Orders > Track package.",
    ),
    (
        "order_tracking",
        {"order_id": "#W3392855", "order_status": "Pending", "name": "Hélène"},
        [],
        "Bonjour, my order hasn't moved at all?",
        "Bonjour Hélène! Your order #W3392855 is still pending, so it hasn't shipped yet. Once it's on its way, you'll get a shipping confirmation email with a tracking link.",
    ),
    (
        "order_tracking",
        {"tracking_number": "9400118899201177"},
        ["what's my tracking number", "Your tracking number is 9400118899201177."],
        "which courier is that?",
        "The courier's details are shown with the tracking information under My Orders > Track package, and in your shipping confirmation email.",
    ),
    (
        "order_tracking",
        {"order_id": "#W1448702", "order_status": "Delivered"},
        [],
        "where's my package??? been waiting forever",
        "Your order #W1448702 shows as delivered. If you haven't found it, please check with neighbours, your building's reception or any safe place you chose, and let me know if it's still missing.",
    ),
    (
        "order_tracking",
        {},
        [],
        "i have 2 orders which one ships first",
        "You can see the status of each order under My Orders on the Example Shop website or app; choose Track package on each one for its latest update and delivery estimate.",
    ),
    (
        "order_tracking",
        {
            "order_id": "#W6629004",
            "order_status": "Out for delivery",
            "tracking_number": "1Z999AA10566629004",
        },
        [],
        "is it today??",
        "Yes, your order #W6629004 is out for delivery. Its tracking number is 1Z999AA10566629004, and you can follow it under My Orders > Track package.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "the courier left my parcel in the rain and everything's soaked",
        "I'm sorry, that's really disappointing. Please keep the packaging, take photos, and report it under My Orders > Report a problem; a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W9341127", "order_status": "Shipped", "delivery_eta": "2026-11-29"},
        [],
        "it was meant to arrive on the 29th and it's still not here",
        "I'm sorry it's late. Your order #W9341127 shows as shipped, with an estimated delivery of 2026-11-29; please check My Orders > Track package for the latest update. If there's no progress, reply \"human agent\" and a colleague will look into it.",
    ),
    (
        "delivery_problem",
        {},
        [
            "my order came damaged",
            "I'm sorry! Please keep the packaging, take photos, and report it under My Orders > Report a problem.",
        ],
        "I already threw the box away",
        "No problem, please still take photos of the item and report it under My Orders > Report a problem, mentioning what happened to the box. A colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "the shoes are two different sizes lol",
        "Oh no, sorry about that! Please keep the packaging, take a photo of both shoes, and report it under My Orders > Report a problem; a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W5176690", "order_status": "Delivered", "name": "Marco"},
        [],
        "delivered to the wrong house I think",
        "Sorry about that, Marco. Your order #W5176690 shows as delivered, so it's worth asking your neighbours or checking any safe place you chose. If it doesn't turn up, reply \"human agent\" and a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "i want a replacement for my broken lamp",
        "I'm sorry your lamp arrived broken. Please keep the packaging, take photos, and report it under My Orders > Report a problem; a colleague will review it and let you know the options.",
    ),
    (
        "order_cancel",
        {},
        [],
        "I placed an order 5 minutes ago, can I still cancel?",
        "If it's still pending, yes: open My Orders, select the order, click Cancel order and choose a reason. The money goes back to your original payment method.",
    ),
    (
        "order_cancel",
        {"order_id": "#W4102287", "order_status": "Pending", "name": "Aiko"},
        [],
        "please cancel, I'll order the right size instead",
        "Of course, Aiko. Your order #W4102287 is still pending, so you can cancel it under My Orders > Cancel order. If you only need a different size, you could also change it under My Orders > Change order instead.",
    ),
    (
        "order_cancel",
        {"order_id": "#W7009915", "order_status": "In transit"},
        [],
        "why can't I cancel?? button is greyed out",
        "Your order #W7009915 is already in transit, and orders can only be cancelled while they're pending, which is why the button isn't available. Once it arrives, you can return it under My Orders > Return or exchange.",
    ),
    (
        "order_cancel",
        {},
        ["cancel my order", "I can help with that. Which order do you mean?"],
        "the headphones",
        "Thanks. If that order is still pending, open it in My Orders, click Cancel order and choose a reason; once it has shipped, it can't be cancelled, but you can return it after delivery.",
    ),
    (
        "order_cancel",
        {},
        [],
        "Refund after cancelling, how long? paid by paypal",
        "For PayPal, the money usually comes back within 5 to 7 business days after you cancel a pending order. You can cancel under My Orders > Cancel order.",
    ),
    (
        "order_modify",
        {"order_id": "#W3380671", "order_status": "Pending"},
        [],
        "I spelled my street name wrong!!",
        "No worries, your order #W3380671 is still pending, so you can correct the address under My Orders > Change order.",
    ),
    (
        "order_modify",
        {},
        [],
        "Can I change to a different product completely?",
        "Changes are limited to another size or colour of the same product, under My Orders > Change order while the order is pending. For a different product, you could cancel the pending order and place a new one.",
    ),
    (
        "order_modify",
        {"order_id": "#W1877302", "order_status": "Delivered"},
        [],
        "need to change the size of what I ordered",
        "Your order #W1877302 has already been delivered, so it can't be changed, but you can exchange it for another size under My Orders > Return or exchange, where you'll see whether it's eligible.",
    ),
    (
        "order_modify",
        {},
        [
            "can I change the colour",
            "While an order is still pending, you can change the colour under My Orders > Change order.",
        ],
        "and will it cost more",
        "If the new colour has a different price, the difference is charged or refunded when you make the change.",
    ),
    (
        "return_exchange",
        {},
        [],
        "bought a gift, can the person return it?",
        'Returns are started under My Orders > Return or exchange once the order has been delivered, where you\'ll see whether each item is eligible. If you need help with a return for a gift, reply "human agent".',
    ),
    (
        "return_exchange",
        {"order_id": "#W6611543", "order_status": "Delivered", "item": "linen duvet cover"},
        [],
        "colour looks different in real life, want to send it back",
        "Sorry it's not what you expected. Your order #W6611543 has been delivered, so you can start a return for the linen duvet cover under My Orders > Return or exchange, where you'll see whether it's eligible; an email will explain how to send it back.",
    ),
    (
        "return_exchange",
        {},
        [
            "how do I return something",
            "Once an order has been delivered, you can start a return under My Orders > Return or exchange.",
        ],
        "i don't see the button",
        'The Return or exchange option appears on delivered orders, so please check that the order shows as delivered. If it does and you still can\'t see it, reply "human agent" and a colleague will help.',
    ),
    (
        "return_exchange",
        {},
        [],
        "is it free to exchange?",
        'When you start an exchange under My Orders > Return or exchange, the page shows whether the item is eligible, and an email explains how to send it back. If you have questions about costs, reply "human agent".',
    ),
    (
        "return_exchange",
        {},
        [],
        "return without the original box?",
        'Whether an item is eligible for return is shown when you start it under My Orders > Return or exchange. If you\'re unsure about the packaging, reply "human agent" and a colleague will help.',
    ),
    (
        "payment_issue",
        {},
        [],
        "3D secure code never comes when i pay",
        "Sorry about that. Please don't share any codes here; try the payment again, or choose another payment method at checkout. If it keeps failing, sign out and back in first.",
    ),
    (
        "payment_issue",
        {},
        [
            "payment declined",
            "Sorry! Please re-enter your card details carefully and check the expiry date and funds, then try again.",
        ],
        "did that 3 times",
        "Thanks for trying. Please sign out and back in, then try again, or choose another payment method at checkout. For your security, never type your full card number in this chat.",
    ),
    (
        "payment_issue",
        {"name": "Gwen"},
        [],
        "how do I save my card for next time",
        "Hi Gwen! You can save and manage cards under My Account > Payment methods on the Example Shop website or app.",
    ),
    (
        "billing_inquiry",
        {"order_id": "#W7520038", "bill_amount": "$56.20"},
        [
            "I need the invoice for #W7520038",
            "For order #W7520038, you can download the invoice under My Orders: select the order and click Invoice.",
        ],
        "and what was the total?",
        "The total charged for order #W7520038 was $56.20.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "Why was I charged before my order shipped?",
        'The invoice under My Orders shows what you were charged for the order, including item prices, delivery and discounts. If the charge doesn\'t look right, reply "human agent" and a colleague will go through it with you.',
    ),
    (
        "billing_inquiry",
        {"order_id": "#W2013847", "bill_amount": "$19.99", "name": "Pete"},
        [],
        "how much did my last order cost",
        "Hi Pete! Order #W2013847 came to $19.99. You can download its invoice under My Orders: select the order and click Invoice.",
    ),
    (
        "balance_usage_inquiry",
        {"balance": "$7.50"},
        ["can I use my store credit", "Yes, your gift card and store credit can be used on future orders."],
        "how much have I got",
        "You have $7.50 in gift card and store credit.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [],
        "how do I check if I got store credit from my return",
        "Your gift card and store credit balance is shown under My Account > Gift cards & credit on the Example Shop website or app.",
    ),
    (
        "pay_bill_topup",
        {},
        [],
        "gift card code isn't being accepted",
        'Sorry about that. Please check the code and add it again under My Account > Gift cards. If it still isn\'t accepted, reply "human agent" and a colleague will look into it.',
    ),
    (
        "pay_bill_topup",
        {},
        [],
        "want to buy credit for my phone",
        "Sorry, Example Shop can't help with mobile top-ups: please contact your mobile operator for that.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "welcome discount didn't show up",
        "Sorry about that. Please check the offer's expiry date and conditions, such as eligible items and minimum spend, and enter the code at checkout before you pay. If it still won't apply, reply \"human agent\".",
    ),
    (
        "promo_coupon_pricing",
        {},
        [
            "my code isn't working",
            "Sorry! Please check the code's expiry date and conditions, and enter it exactly as shown at checkout.",
        ],
        "where are the conditions?",
        "The conditions are in the offer details that came with the code, for example in the email or on the offer page. They list the eligible items and any minimum spend.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "can I use two codes at once?",
        'The offer details for each code show its conditions, so please check them before entering a code at checkout. For anything else about an offer, reply "human agent".',
    ),
    (
        "product_presales_inquiry",
        {"item": "merino wool scarf"},
        [],
        "is the scarf itchy? what's it made of",
        'The full details for the merino wool scarf, including the materials, are on its product page on the Example Shop website or app. If you\'d like help choosing, reply "human agent".',
    ),
    (
        "product_presales_inquiry",
        {},
        [],
        "can I pick up in store instead of delivery",
        "The delivery options for your address are shown at checkout once you've added the item to your cart and entered the address.",
    ),
    (
        "product_presales_inquiry",
        {},
        ["is the blue one in stock", "The product page shows the current stock for each colour."],
        "it says low stock, how many left",
        "I don't have stock figures beyond what the product page shows, sorry. If you'd like it, it's best to order while it's available.",
    ),
    (
        "account_manage",
        {},
        [],
        "Can you delete all my data",
        'To close your account, reply "human agent" and a colleague will verify your identity and help you with it.',
    ),
    (
        "account_manage",
        {"name": "Imogen"},
        [],
        "I got married, need to change my surname",
        "Congratulations, Imogen! You can update your name under My Account > Profile on the Example Shop website or app, and it applies as soon as you save.",
    ),
    (
        "app_website_issue",
        {},
        [],
        "Search for 'red dress' shows nothing",
        'Sorry about that. Please refresh the page and try the search again, or sign out and back in; if it still shows nothing, reply "human agent" and we\'ll look into it.',
    ),
    (
        "app_website_issue",
        {},
        [],
        "app says I need to update but the update won't install",
        'Sorry about that. Please close other apps and try the update again; if it still won\'t install, you can use the Example Shop website in the meantime, or reply "human agent".',
    ),
    (
        "plan_change",
        {},
        [],
        "what do I get with premium?",
        "The membership options and what each one includes, with prices, are shown under My Account > Subscriptions before you confirm any change.",
    ),
    (
        "network_fault",
        {},
        [],
        "why does your site never load on my mobile data?",
        "Sorry about that. Please check whether other websites load on your mobile data; if they don't, your mobile provider can help. If only our site fails, try refreshing, clearing your browser's cache or using the app.",
    ),
    (
        "roaming_international",
        {},
        [],
        "I live in Norway, can I order from you?",
        "Enter your Norwegian address at checkout and you'll see whether we deliver there, along with the delivery options and costs.",
    ),
    (
        "sim_device",
        {},
        [],
        "does the phone you sell work with any sim",
        "The full details for each phone are on its product page. For SIM or network questions, your mobile operator can also help.",
    ),
    (
        "greeting_chitchat",
        {},
        [],
        "sorry for all the questions lol",
        "No need to apologise, I'm happy to help! What else can I do for you?",
    ),
    (
        "greeting_chitchat",
        {"name": "Jade"},
        [],
        "hi im jade",
        "Hi Jade, nice to meet you! I'm the Example Shop virtual assistant. How can I help today?",
    ),
]

HAND += [
    (
        "order_tracking",
        {"order_id": "#W4090127", "order_status": "Shipped"},
        ["hey", "Hi there! How can I help you today?"],
        "my order pls, W4090127",
        "Sure! Order #W4090127 has shipped. You can follow it step by step under My Orders > Track package, or with the link in your shipping confirmation email.",
    ),
    (
        "order_tracking",
        {"delivery_eta": "January 4"},
        [],
        "when will the rest of my christmas presents come",
        "The estimated delivery is January 4. You can follow the latest progress under My Orders > Track package on the Example Shop website or app.",
    ),
    (
        "order_tracking",
        {
            "order_id": "#W5318842",
            "order_status": "In transit",
            "delivery_eta": "2026-12-05",
            "tracking_number": "TBA51883420011",
        },
        [],
        "I need everything you've got on my order",
        "Here's what I have: order #W5318842 is in transit, with an estimated delivery of 2026-12-05, and the tracking number is TBA51883420011. You can follow it under My Orders > Track package.",
    ),
    (
        "order_tracking",
        {},
        [],
        "can you tell me where my order is? the number is W7781104",
        "I don't have the details of that order in this chat, sorry. You can see its status and tracking under My Orders > Track package on the Example Shop website or app.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W2264019", "order_status": "Delivered"},
        [
            "my order never came",
            "I'm sorry! Your order #W2264019 shows as delivered, so please check with neighbours, your building's reception or any safe place you chose.",
        ],
        "checked everywhere. nothing.",
        "Thank you for checking, and I'm sorry it's still missing. Please reply \"human agent\" and a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "parcel arrived but it's for a different name",
        "Sorry about the mix-up. Please keep the packaging, take a photo of the label, and report it under My Orders > Report a problem; a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "the tracking says 'exception', what does that mean",
        "I'm sorry your delivery has hit a snag. Please check My Orders > Track package for the latest update, and if it doesn't move on, reply \"human agent\" so a colleague can look into it.",
    ),
    (
        "delivery_problem",
        {"order_id": "#W8402291", "order_status": "Out for delivery"},
        [],
        "driver said he couldn't find my address",
        'Sorry about that. Your order #W8402291 is still out for delivery, so please keep an eye on My Orders > Track package for the latest update. If it isn\'t delivered, reply "human agent" and a colleague will look into it.',
    ),
    (
        "order_cancel",
        {"order_id": "#W1634478", "order_status": "Pending"},
        ["can I cancel?", "Of course. Could you tell me the order number?"],
        "1634478",
        "Thanks! Order #W1634478 is still pending, so you can cancel it under My Orders: select it, click Cancel order and choose a reason. Your money goes back to the original payment method.",
    ),
    (
        "order_cancel",
        {},
        [],
        "does cancelling affect my account at all",
        "Cancelling a pending order under My Orders > Cancel order just cancels that order, and the money goes back to your original payment method. If you have any other worries, a human agent can help.",
    ),
    (
        "order_cancel",
        {"order_id": "#W9987310", "order_status": "Delivered", "name": "Yusuf"},
        [],
        "I want to cancel my order",
        "Hi Yusuf, your order #W9987310 has already been delivered, so it can't be cancelled. You can return it under My Orders > Return or exchange instead, where you'll see whether each item is eligible.",
    ),
    (
        "order_modify",
        {"order_id": "#W6600782", "order_status": "Pending"},
        ["want to change my order", "Happy to help! Which order is it about?"],
        "#W6600782, want the grey one",
        "Thanks! Order #W6600782 is still pending, so you can switch to grey under My Orders > Change order. Item changes can only be made once, so please make any others at the same time.",
    ),
    (
        "order_modify",
        {},
        [],
        "can I change delivery to a different day",
        'While an order is pending, you can change its delivery address, payment method or item options under My Orders > Change order. For delivery day questions, reply "human agent" and a colleague will help.',
    ),
    (
        "return_exchange",
        {"order_id": "#W3102245", "order_status": "Delivered"},
        ["return", "Sure, which order is it?"],
        "#W3102245",
        "Thanks! Order #W3102245 has been delivered, so you can start the return under My Orders > Return or exchange, where you'll see whether each item is eligible.",
    ),
    (
        "return_exchange",
        {},
        [],
        "can I return just one item from my order",
        "Yes, when you start a return under My Orders > Return or exchange, the page shows each item separately and whether it's eligible.",
    ),
    (
        "return_exchange",
        {},
        [],
        "I got the email about sending it back but lost it",
        'Sorry about that. Please reply "human agent" and a colleague will help you with the return instructions.',
    ),
    (
        "payment_issue",
        {},
        [],
        "checkout says 'payment method not available'",
        "Sorry about that. The payment methods available for an order are shown at checkout, so please choose another one from the list, or sign out and back in and try again.",
    ),
    (
        "payment_issue",
        {},
        [],
        "can you take the payment over chat? I'll type my card",
        "Thanks, but please don't type your card details here: for your security, payments are only made at checkout. You can also save a card under My Account > Payment methods.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "there's a delivery charge I didn't expect",
        "The invoice for your order shows the delivery cost along with item prices and discounts; you'll find it under My Orders > select the order > Invoice. If it doesn't look right, reply \"human agent\".",
    ),
    (
        "billing_inquiry",
        {"order_id": "#W5005183"},
        [],
        "receipt for W5005183 please",
        "For order #W5005183, you can view and download the invoice under My Orders: select the order and click Invoice.",
    ),
    (
        "balance_usage_inquiry",
        {"balance": "$250.00", "name": "Lena"},
        [],
        "did the gift card from my grandma get added??",
        "Yes, Lena! Your gift card and store credit balance is $250.00, and it can be used on your next orders.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [
            "how much data do I have",
            "Sorry, Example Shop can't see your mobile data: please check with your mobile operator.",
        ],
        "oh oops wrong chat lol",
        "No worries at all! If there's anything about your Example Shop orders I can help with, just let me know.",
    ),
    (
        "pay_bill_topup",
        {"balance": "$15.00"},
        [],
        "can I use my gift card balance on this order",
        "Yes, your current balance of $15.00 can be used on your orders. Gift cards are managed under My Account > Gift cards.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "my friend referred me but I didn't get the credit",
        'Sorry about that. Missing referral credits are reviewed by a colleague, so please reply "human agent" and they\'ll look into it.',
    ),
    (
        "promo_coupon_pricing",
        {"name": "Omar"},
        [],
        "Your competitor sells this cheaper, will you match it?",
        'Thanks for asking, Omar. I can\'t promise a price match here, but a colleague can review it: just reply "human agent".',
    ),
    (
        "product_presales_inquiry",
        {"item": "Bluetooth speaker"},
        [],
        "is it waterproof",
        'The full specifications for the Bluetooth speaker are on its product page on the Example Shop website or app. If you can\'t find what you need there, reply "human agent".',
    ),
    (
        "product_presales_inquiry",
        {},
        [],
        "how long does delivery usually take",
        "The delivery options for your address, and their costs, are shown at checkout once you've entered the address.",
    ),
    (
        "account_manage",
        {},
        [],
        "how do I stop the app notifications",
        "You can change your communication preferences under My Account > Communication preferences on the Example Shop website or app.",
    ),
    (
        "account_manage",
        {},
        [
            "I want to change my email",
            'To change the email you sign in with, reply "human agent" and a colleague will verify your identity and help.',
        ],
        "why can't I do it myself",
        'Changing the sign-in email needs an identity check to keep your account secure, so a colleague does it for you. Just reply "human agent" to start.',
    ),
    (
        "app_website_issue",
        {},
        [
            "the cart won't update",
            "Sorry about that! Please refresh the page and try again, then sign out and back in.",
        ],
        "still not working",
        "Sorry it's still not working. Please clear your browser's cookies and cache, or try the app instead; if that doesn't help, reply \"human agent\" and we'll look into it.",
    ),
    (
        "app_website_issue",
        {},
        [],
        "photos on product pages don't load",
        "Sorry about that. Please refresh the page and check whether other websites load normally; if they do, clear your browser's cookies and cache or update the app.",
    ),
    (
        "plan_change",
        {"plan": "Free Delivery Pass"},
        [],
        "what am I subscribed to",
        "You're subscribed to the Free Delivery Pass. You can see or change it under My Account > Subscriptions.",
    ),
    (
        "network_fault",
        {},
        [
            "no signal on my phone",
            "I'm sorry, but Example Shop can't help with mobile signal problems: your mobile provider is the right place for that.",
        ],
        "oh ok who do i call then",
        "Your mobile provider, the company your phone plan or SIM is with, can help with signal problems; their contact details are usually on their website or your bill.",
    ),
    (
        "roaming_international",
        {},
        [],
        "do you charge customs fees for overseas orders",
        'The delivery options and costs for an overseas address are shown at checkout. For questions about other charges, reply "human agent" and a colleague will help.',
    ),
    (
        "sim_device",
        {},
        [],
        "I need to unlock my phone from my carrier",
        "Phone unlocking is handled by your mobile operator rather than Example Shop, so please contact them.",
    ),
    (
        "greeting_chitchat",
        {},
        [],
        "happy holidays!",
        "Happy holidays to you too, and thanks for contacting Example Shop! Is there anything I can help you with?",
    ),
    (
        "greeting_chitchat",
        {},
        [],
        "can I talk to you about anything?",
        "I'm the Example Shop virtual assistant, so I can help with orders, delivery, returns and refunds, payments, coupons and product questions. What would you like help with?",
    ),
]
INTENT_POOLS["app_website_issue"]["subs"][0]["cores"] = [
    "Please refresh the page and try again, then sign out and back in; if that doesn't help, clear your browser's cookies and cache or update the app.",
    "Try clearing your browser's cookies and cache, or update the app to the latest version, then sign out and back in.",
    "If other websites are slow too, it may be your connection; otherwise refresh the page, close other tabs and sign out and back in.",
    "Please refresh the page and close other tabs; if an item won't go into your cart, check whether it shows as out of stock, and if the app is misbehaving, update it to the latest version.",
]
INTENT_POOLS["product_presales_inquiry"]["cf"][0]["tails"] = [
    "To see delivery options and costs, add it to your cart and enter your address at checkout.",
    "Delivery options and costs for your address are shown at checkout.",
]
BYE2 = [
    "",
    "If anything else comes up, just message us here.",
    "Happy shopping!",
    "We're here whenever you need us.",
]
INTENT_POOLS["sim_device"]["subs"][0]["msgs"] = [
    "lost my phone",
    "phone stolen, block my sim",
    "my phone got stolen",
    "left my phone in a taxi, what do I do",
]
INTENT_POOLS["sim_device"]["subs"].append(
    dict(
        tone="n",
        msgs=[
            "need a new sim card",
            "how do I activate eSIM",
            "transfer my number to a new phone",
            "need a PUK code",
            "sim card not working",
        ],
        cores=[
            "SIM cards, eSIMs and phone numbers are managed by your mobile operator rather than Example Shop, so please contact them for that.",
            "That's one for your mobile operator, I'm afraid: Example Shop doesn't handle SIM cards, eSIMs or phone numbers.",
        ],
        close=[
            "",
            "If you bought a phone from us and it's faulty, you can start a return or exchange in My Orders.",
        ],
    )
)
