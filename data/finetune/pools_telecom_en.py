"""Hand-written pools for telecom / English (Example Mobile). See README.md.
Cores use only facts from the intent's guidance (prompts/telecom/en.yaml) and {placeholders} filled from
the conversation's context. Openers and closers carry no facts."""

DOMAIN, LANG, COMPANY = "telecom", "en", "Example Mobile"

HA = 'reply "human agent"'
INTENT_POOLS = {}

INTENT_POOLS["balance_usage_inquiry"] = dict(
    noise=["name"],
    close=[
        "",
        "",
        "If you're running low, you can add a data pack or change plan in the app.",
        "Is there anything else I can check for you?",
        "Let me know if there's anything else you need.",
    ],
    subs=[
        dict(
            tone="q",
            msgs=[
                "how do I check how much data I have left?",
                "Where can I see my usage?",
                "how can i see my balance",
                "is there a code to check my credit?",
                "How do I find out how many minutes I've got left this month?",
                "check data usage how",
                "what's the quickest way to see my remaining texts and minutes",
                "hi, how can I tell how much credit is on my prepaid sim?",
                "where in the app is my data usage shown",
                "can i check my balance without the app? my phone is old",
                "I keep running out of data and never know how much is left. Is there a way to keep track?",
                "usage???",
                "hello, I'd like to know my remaining allowance please",
                "how much data do i have",
            ],
            cores=[
                "You can see your credit, data, minutes and texts under My usage on the Example Mobile app's home screen, or dial *100# from your phone for a quick summary.",
                "The easiest way is to open the Example Mobile app and tap My usage on the home screen; it shows your data, minutes, texts and credit. You can also dial *100# from your phone at any time, no app needed.",
                "Just dial *100# from your phone, or open My usage on the home screen of the Example Mobile app, and you'll see your up-to-date data, minutes, texts and credit.",
                "I don't have your usage figures in this chat, but you can see them straight away under My usage on the app's home screen, or by dialling *100#.",
                "Your remaining data, minutes, texts and credit are shown under My usage on the home screen of the Example Mobile app. Dialling *100# gives you the same figures without the app.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "my data ran out already, what now?",
                "no data left and it's only the 10th",
                "I used all my data, how do I get more",
                "ran out of data again ugh",
                "data finished. options?",
                "i've gone through my whole allowance, can I add more?",
            ],
            cores=[
                "When your data allowance has run out, you can add a data pack in the Example Mobile app under My plan > Add-ons, or change to a plan with more data. You can keep an eye on your usage under My usage on the home screen or by dialling *100#.",
                "You can add a data pack under My plan > Add-ons in the Example Mobile app, which gets you back online, or move to a bigger plan under My plan > Change plan. To track what's left, check My usage on the home screen or dial *100#.",
                "Once the allowance is used up, mobile data stops until you add a data pack or change plan, both of which you can do in the Example Mobile app. After that, My usage on the home screen or *100# will show your new remaining data.",
            ],
            close=["", "", "Let me know if you need anything else."],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "how much data do I have left?",
                "data left this month?",
                "how much internet is left on my plan",
                "remaining data pls",
                "can you tell me my data balance",
                "Hi! Could you let me know how much mobile data I still have?",
                "how many gigs left",
                "am I close to running out of data?",
            ],
            cores=[
                "You have {data_left} of data left this month.",
                "Your remaining data this month is {data_left}.",
                "You've got {data_left} of data remaining this month.",
                "Right now you have {data_left} of mobile data left.",
            ],
            tails=[
                "You can check it any time under My usage on the Example Mobile app's home screen, or by dialling *100#.",
                "For up-to-date figures later on, tap My usage on the app's home screen or dial *100#.",
                "If that won't last the month, you can add a data pack under My plan > Add-ons.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "what's my balance",
                "how much credit have I got",
                "check my credit please",
                "how much money is on my prepaid account?",
                "balance?",
                "Could you tell me my current balance please?",
                "hw much credit left",
            ],
            cores=[
                "Your current balance is {balance}.",
                "You have {balance} of credit on your account.",
                "Your balance right now is {balance}.",
            ],
            tails=[
                "You can check it again any time by dialling *100#, or under My usage in the Example Mobile app.",
                "To see it later, open My usage on the app's home screen or dial *100#.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "which plan am I on?",
                "what plan do i have again",
                "Can you remind me what my current plan is?",
                "my plan name?",
                "what am i paying for, which plan is it",
            ],
            cores=[
                "You're on the {plan} plan.",
                "Your current plan is {plan}.",
                "You're currently on {plan}.",
            ],
            tails=[
                "You can see its details and your usage under My usage on the Example Mobile app's home screen.",
                "If you'd like to compare it with other plans, they're listed under My plan > Change plan in the app.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "how much data and credit do I have left?",
                "can you tell me my balance and remaining data",
                "data + credit left?",
                "Hi, what's left on my account this month, data and money?",
            ],
            cores=[
                "You have {data_left} of data left this month, and your balance is {balance}.",
                "Your balance is {balance}, and your remaining data this month is {data_left}.",
            ],
            tails=[
                "You can check both any time under My usage in the Example Mobile app or by dialling *100#.",
                "For updated figures later, dial *100# or tap My usage on the app's home screen.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "why is my data not working, have i run out?",
                "did I use up all my data??",
                "internet's gone, is my allowance finished?",
            ],
            cores=[
                "It looks like your data has run out: you have {data_left} left this month.",
                "Your remaining data this month is {data_left}, so your allowance has been used up.",
            ],
            need_vals={"data_left": ["0 MB", "0 GB", "0.0 GB"]},
            tails=[
                "You can add a data pack under My plan > Add-ons in the Example Mobile app, or change to a plan with more data.",
                "To get back online, add a data pack in the app under My plan > Add-ons, or move to a bigger plan.",
            ],
        ),
    ],
    follow=[
        (
            "how do I check my usage",
            "You can see it under My usage on the Example Mobile app's home screen, or by dialling *100#.",
            "can't you just tell me how much data i have",
            [
                "Of course: you have {data_left} of data left this month.",
                "Sure, your remaining data this month is {data_left}.",
            ],
            ["data_left"],
        ),
        (
            "what's my balance?",
            "Your current balance is {balance}. You can check it any time by dialling *100#.",
            "and how much data?",
            [
                "You have {data_left} of data left this month.",
                "Your remaining data this month is {data_left}.",
            ],
            ["balance", "data_left"],
        ),
        (
            "data ran out",
            "Sorry about that. You can add a data pack in the Example Mobile app under My plan > Add-ons.",
            "where exactly is that",
            [
                "Open the Example Mobile app, tap My plan, then Add-ons, and you'll see the data packs you can add.",
                "In the Example Mobile app, go to My plan and then Add-ons; the data packs available to you are listed there with their prices.",
            ],
            None,
        ),
    ],
)

INTENT_POOLS["billing_inquiry"] = dict(
    noise=["name", "plan"],
    close=[
        "",
        "",
        "If a charge looks wrong, a human agent can review it with you.",
        'If anything on it looks wrong, reply "human agent" and a colleague will go through it with you.',
    ],
    subs=[
        dict(
            tone="q",
            msgs=[
                "where can I see my bill?",
                "how do I get a copy of my invoice",
                "I need my bills from the last three months for my tax return",
                "where is the itemised bill",
                "can I download my bill as a pdf?",
                "how do i see what i'm being charged for",
                "bill breakdown?",
                "Where can I find past invoices?",
                "hey can u send me my bill",
                "I want to understand the charges on my bill, where do I look?",
                "is there a detailed version of my bill somewhere",
                "my bill seems higher than usual, where can i see the details",
            ],
            cores=[
                "You can see every charge on your bill in the Example Mobile app under Billing > Bills: tap a bill to open the itemised view, and you can download a PDF copy from there too.",
                "Your bills are in the Example Mobile app under Billing > Bills. Tap any bill to see each charge, and use the download option to save a PDF invoice.",
                "Open the Example Mobile app and go to Billing > Bills, where all your bills are listed; tapping one shows the itemised charges, and you can download it as a PDF.",
                "In the Example Mobile app, Billing > Bills shows your current and past bills, each with an itemised view of the charges and a PDF you can download.",
                "I can't see your bill details in this chat, but Billing > Bills in the Example Mobile app shows every charge; tap a bill for the itemised view or to download a copy.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "how much is my bill?",
                "what's my bill this month",
                "how much do I owe",
                "bill amount?",
                "Can you tell me how much my latest bill is?",
                "how much was my last bill",
            ],
            cores=[
                "Your latest bill is {bill_amount}.",
                "Your most recent bill comes to {bill_amount}.",
                "Your latest bill is {bill_amount}, due on {due_date}.",
                "This month's bill is {bill_amount}, and it's due on {due_date}.",
            ],
            tails=[
                "You can see the itemised charges and download a PDF in the Example Mobile app under Billing > Bills.",
                "Tap the bill under Billing > Bills in the app to see each charge.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "when is my bill due?",
                "due date?",
                "what's the deadline for paying my bill",
                "When do I have to pay by?",
                "when's the payment due this month",
            ],
            cores=[
                "Your next payment is due on {due_date}.",
                "Your bill is due on {due_date}.",
                "The due date for your current bill is {due_date}.",
                "Your latest bill of {bill_amount} is due on {due_date}.",
            ],
            tails=[
                "You can see the full bill under Billing > Bills in the Example Mobile app.",
                "The bill itself, with every charge, is under Billing > Bills in the app.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "why is my bill so high this month?",
                "my bill went up, what happened?",
                "this bill is way more than normal",
            ],
            cores=[
                "Your latest bill is {bill_amount}. To see what makes it up, open Billing > Bills in the Example Mobile app and tap the bill for the itemised view of every charge."
            ],
            tails=[
                "If a charge there looks wrong, a human agent can review it with you.",
                'If something doesn\'t look right, reply "human agent" and a colleague will go through it with you.',
            ],
        ),
    ],
    follow=[
        (
            "where's my bill",
            "You can see it in the Example Mobile app under Billing > Bills.",
            "ok but how much is it",
            [
                "Your latest bill is {bill_amount}, due on {due_date}.",
                "It's {bill_amount}, and the due date is {due_date}.",
            ],
            ["bill_amount", "due_date"],
        ),
        (
            "how much is my bill",
            "Your latest bill is {bill_amount}.",
            "and when do i need to pay it by?",
            ["It's due on {due_date}.", "The due date is {due_date}."],
            ["bill_amount", "due_date"],
        ),
    ],
)

INTENT_POOLS["payment_issue"] = dict(
    noise=["name"],
    close=[
        "",
        "For your security, please never type your full card number or security code in this chat.",
        "Please don't share card details here; we never need them in chat.",
    ],
    subs=[
        dict(
            tone="p",
            msgs=[
                "my payment got declined",
                "card declined when paying bill",
                "payment failed in the app, why?",
                "It says transaction unsuccessful every time I pay",
                "why won't my card work for my bill",
                "tried to pay 3 times, failed every time",
                "payment error",
                "The app won't accept my card",
                "cant pay my bill, keeps failing!!",
                "my direct debit payment bounced",
            ],
            cores=[
                "Please check that your card hasn't expired and has enough available funds, then try again. You can also add another card or PayPal under Billing > Payment methods in the Example Mobile app.",
                "First, check the card's expiry date and that there are enough funds available, then try the payment again. If it still fails, add another card or PayPal under Billing > Payment methods and pay with that.",
                "This is usually down to the card itself, so please check it hasn't expired and has enough funds before trying again. Another option is to add a different card or PayPal under Billing > Payment methods in the app.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "how do I change my payment card?",
                "want to pay with paypal instead",
                "update card details",
                "new bank card, how do i update it",
                "Can I add a second card to my account?",
                "remove old card from account",
                "switch payment method pls",
            ],
            cores=[
                "You can add a new card or PayPal under Billing > Payment methods in the Example Mobile app, and choose it for your payments there.",
                "Go to Billing > Payment methods in the Example Mobile app, where you can add a new card or PayPal and manage the ones you already have.",
                "Payment methods are managed in the Example Mobile app under Billing > Payment methods: add your new card or PayPal there and use it for your next payment.",
            ],
            close=[
                "For your security, please don't type card details in this chat.",
                "",
                "Please don't share your card number here; the app handles it securely.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "money was taken from my account but the bill still says unpaid",
                "paid but app says I haven't",
                "I was charged but my payment isn't showing",
                "bank shows the payment went through, your system doesn't",
                "why does it still say overdue, I paid yesterday",
            ],
            cores=[
                'Since the money has left your account but the bill still shows as unpaid, a colleague needs to check it: please reply "human agent" and they\'ll look into it.',
                'When a payment has been taken but the bill still shows unpaid, a human agent can check what happened. Just reply "human agent" and a colleague will look into it with you.',
            ],
            close=["", "Please don't share card details in this chat."],
        ),
    ],
    follow=[
        (
            "my card got declined",
            "Sorry about that. Please check that your card hasn't expired and has enough available funds, then try again.",
            "it's a brand new card with plenty of money",
            [
                "Thanks for checking. You could add another card or PayPal under Billing > Payment methods in the Example Mobile app and try with that instead.",
                "In that case, please try adding it again, or use another card or PayPal under Billing > Payment methods in the app.",
            ],
            None,
        ),
    ],
)

INTENT_POOLS["pay_bill_topup"] = dict(
    noise=["name", "plan"],
    close=["", "", "Let me know if you need anything else."],
    subs=[
        dict(
            tone="q",
            msgs=[
                "how do I pay my bill?",
                "where do i pay",
                "pay bill online how",
                "How can I top up my prepaid SIM?",
                "top up please",
                "want to add credit",
                "can I pay my bill in the app?",
                "how to recharge",
                "Hi, I'd like to pay my bill but can't find where",
            ],
            cores=[
                "Open the Example Mobile app and go to Billing > Pay bill, or Top up for prepaid, then choose the amount and pay with a saved card or PayPal.",
                "You can pay or top up in the Example Mobile app: go to Billing > Pay bill (or Top up if you're prepaid), pick the amount and pay with your saved card or PayPal.",
                "In the Example Mobile app, Billing > Pay bill lets you pay your bill, and Billing > Top up adds prepaid credit; both accept a saved card or PayPal.",
            ],
            close=[
                "",
                "You can also switch on Autopay on the same page so future bills are paid automatically.",
                "",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "how do I set up autopay?",
                "can bills be paid automatically",
                "automatic payments?",
                "I keep forgetting to pay, can it just take it automatically?",
                "turn on auto pay",
            ],
            cores=[
                "You can switch on Autopay in the Example Mobile app under Billing > Pay bill, and future bills will then be paid automatically.",
                "Yes, just switch on Autopay on the Billing > Pay bill page of the Example Mobile app, and your future bills will be paid automatically with your saved card or PayPal.",
                "Autopay is on the Billing > Pay bill page in the Example Mobile app; once it's on, each new bill is paid automatically.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "my line was suspended for not paying",
                "phone cut off, I forgot to pay the bill",
                "service suspended overdue bill how to reconnect",
                "they blocked my number because of an unpaid bill",
                "I paid my overdue bill, still no service",
            ],
            cores=[
                "Your line can be reconnected once the overdue amount is paid, which you can do in the Example Mobile app under Billing > Pay bill. After that, please restart your phone so it reconnects.",
                "Once the overdue amount has been paid under Billing > Pay bill in the Example Mobile app, the line can be reconnected; restart your phone afterwards to pick up the service again.",
                "A line suspended for an overdue bill can be reconnected once the overdue amount is paid. After paying, please restart your phone.",
            ],
            close=["", 'If it still doesn\'t work after that, reply "human agent".'],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "how much do I need to pay?",
                "what do i owe and how do i pay",
                "I want to pay my bill now, how much is it?",
                "amount due?",
                "pay bill - how much?",
            ],
            cores=[
                "Your amount due is {bill_amount}, due by {due_date}.",
                "You owe {bill_amount}, and it's due by {due_date}.",
                "Your amount due is {bill_amount}.",
            ],
            tails=[
                "To pay, open the Example Mobile app, go to Billing > Pay bill and pay with a saved card or PayPal.",
                "You can pay it under Billing > Pay bill in the Example Mobile app with a saved card or PayPal.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "how much credit do I have before I top up?",
                "topping up - what's my balance now",
                "need to top up, how much is left",
                "is my credit low?",
            ],
            cores=["Your current balance is {balance}.", "You have {balance} of credit right now."],
            tails=[
                "To top up, go to Billing > Top up in the Example Mobile app, choose the amount and pay with a saved card or PayPal.",
                "You can add credit under Billing > Top up in the Example Mobile app.",
            ],
        ),
    ],
    follow=[
        (
            "how do i pay",
            "Open the Example Mobile app and go to Billing > Pay bill, then pay with a saved card or PayPal.",
            "and how much is it?",
            [
                "Your amount due is {bill_amount}, due by {due_date}.",
                "It's {bill_amount}, due by {due_date}.",
            ],
            ["bill_amount", "due_date"],
        ),
    ],
)

INTENT_POOLS["plan_change"] = dict(
    noise=["name"],
    close=[
        "",
        "",
        'If you\'d like a person to walk you through it, reply "human agent".',
        "For questions about your contract, a human agent can help.",
    ],
    subs=[
        dict(
            tone="q",
            msgs=[
                "I want to change my plan",
                "upgrade plan",
                "what plans do you have?",
                "can I switch to a cheaper plan",
                "how much is your unlimited plan?",
                "Is there a plan with more data?",
                "downgrade my plan please",
                "what are the prices of your plans",
                "hi, looking to move to a better plan",
                "do you have any deals on plans right now",
                "can i change plan mid-month",
                "show me plan options",
            ],
            cores=[
                "You can see the plans available to you and their monthly prices in the Example Mobile app under My plan > Change plan. The new price and start date are shown for you to confirm before anything changes.",
                "All the plans you can switch to, with their prices, are listed in the Example Mobile app under My plan > Change plan, and nothing changes until you've checked the new price and confirmed.",
                "I can't quote plans or prices here, but My plan > Change plan in the Example Mobile app shows every plan available to you with its monthly price; you confirm the new price before the change goes through.",
                "Open the Example Mobile app and go to My plan > Change plan to compare the plans available to you and their prices. You'll see the new price and when it starts before you confirm.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "can I add a data pack",
                "just need a bit more data this month",
                "extra data add-on?",
                "How do I buy more data without changing plan?",
            ],
            cores=[
                "You can add a data pack in the Example Mobile app under My plan > Add-ons, without changing your plan. The packs available and their prices are shown there.",
                "Yes, go to My plan > Add-ons in the Example Mobile app and pick a data pack; the price is shown before you confirm.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "I want to add a line for my son",
                "add extra line to my account",
                "can my wife join my plan?",
                "second sim on same account?",
            ],
            cores=[
                "You can add an extra line from My plan in the Example Mobile app, where the options and prices are shown for you to confirm before anything changes.",
                "Extra lines can be added in the Example Mobile app under My plan; you'll see the options and the price before confirming.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "can I change plan while in contract?",
                "is there a fee to change plan before contract ends",
                "my contract has 6 months left, can I downgrade?",
            ],
            cores=[
                'Contract questions are best checked by a colleague, so please reply "human agent" and they\'ll go through it with you. You can also see the plans available to you under My plan > Change plan in the Example Mobile app.'
            ],
            close=[""],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "I want to upgrade, what am I on now?",
                "which plan do I have and what else is there",
                "change plan - what's my current one?",
                "can I switch from my current plan?",
                "I'd like something with more data than what I have",
            ],
            cores=[
                "You're currently on {plan}.",
                "Your current plan is {plan}.",
                "At the moment you're on the {plan} plan.",
            ],
            tails=[
                "To see the other plans available to you and their prices, go to My plan > Change plan in the Example Mobile app; the new price is shown for you to confirm before anything changes.",
                "You can compare it with the other plans and prices under My plan > Change plan in the app, and nothing changes until you confirm.",
            ],
        ),
    ],
    follow=[
        (
            "can I change my plan",
            "Of course. You can see the plans available to you and their prices in the Example Mobile app under My plan > Change plan.",
            "will i lose my number?",
            [
                "No, changing plan doesn't affect your number. The new price and start date are shown in the app before you confirm.",
                "Changing plan keeps your number; you'll see the new price and start date before you confirm anything.",
            ],
            None,
        ),
    ],
)

INTENT_POOLS["network_fault"] = dict(
    noise=["name", "plan"],
    close=[
        "",
        'If it still doesn\'t work, reply "human agent" and a colleague will check your line.',
        "Let me know how it goes.",
    ],
    subs=[
        dict(
            tone="p",
            msgs=[
                "no internet on my phone",
                "mobile data not working",
                "my data stopped working",
                "I can't get online on 4G",
                "internet is super slow",
                "no signal since this morning",
                "phone says no service",
                "can't load any pages on mobile data",
                "data isn't working but wifi is fine",
                "my 5G keeps dropping",
                "calls keep failing",
                "no bars at all at home",
                "why is my connection so bad today",
                "lost network after updating my phone",
            ],
            cores=[
                "Please start by checking that Airplane mode is off and Mobile data is on, then restart your phone.",
                "Let's try a couple of quick checks first: make sure Airplane mode is off and Mobile data is switched on, then restart your phone.",
                "First, please restart your phone, and check that Airplane mode is off and Mobile data is on.",
                "Could you check that Airplane mode is off and Mobile data is on? If both look right, restarting your phone often fixes it.",
            ],
            close=[
                "If that doesn't help, let me know and we'll try the next steps.",
                "Let me know if that sorts it out.",
                "Tell me how it goes and we'll continue from there.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "I use a VPN and now the data is slow",
                "data saver is on, could that be it?",
                "only getting 3G, why?",
                "phone stuck on old network type",
            ],
            cores=[
                "Please restart your phone, then take the SIM card out and put it back in, and try again.",
                "Let's start with a restart of your phone; if data is still slow or missing after that, take the SIM out and put it back in.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "phone asking for PUK code",
                "it says SIM locked, enter PUK",
                "PUK?? what is that",
                "entered wrong pin 3 times now it wants puk",
            ],
            cores=[
                "Please don't try to guess the PUK code. Reply \"human agent\" and a colleague will help you once they've checked your identity.",
                'Please don\'t guess the PUK code, as too many wrong tries can cause more trouble. A colleague can help after checking your identity, so just reply "human agent".',
            ],
            close=[""],
        ),
        dict(
            tone="p",
            msgs=[
                "is there an outage in my area?",
                "is the network down?",
                "are you having problems with the network right now",
                "everyone in my street has no signal, outage?",
            ],
            cores=[
                'I\'m not able to see outage information in this chat, but a colleague can check your line: reply "human agent". In the meantime, restarting your phone and checking that Airplane mode is off is worth a try.',
                "I can't check for outages here, sorry. Please try restarting your phone and make sure Mobile data is on; if it still doesn't work, reply \"human agent\" and a colleague will check your line.",
            ],
            close=[""],
        ),
        dict(
            tone="p",
            msgs=[
                "abroad and no data",
                "in france, no internet on my phone",
                "travelling and mobile data doesn't work",
            ],
            cores=[
                "When you're abroad, Data roaming needs to be turned on in your phone's settings. Please check that, then restart your phone."
            ],
            close=['If it still doesn\'t work, reply "human agent".', ""],
        ),
    ],
    cf=[
        dict(
            tone="p",
            msgs=[
                "no internet on my phone",
                "data stopped working",
                "mobile data not working since yesterday",
                "can't browse on my phone, calls work",
            ],
            cores=[
                "Your remaining data is {data_left}; if it has run out, mobile data stops until you add a data pack in the Example Mobile app.",
                "I can see you have {data_left} of data left this month. If that's used up, mobile data stops until you add a data pack in the app.",
            ],
            tails=[
                "If you still have data, please check that Airplane mode is off and Mobile data is on, then restart your phone.",
                "Otherwise, please make sure Airplane mode is off and Mobile data is on, and restart your phone.",
            ],
        ),
        dict(
            tone="p",
            msgs=["internet dead, did my data run out?", "no data, is my allowance finished?"],
            cores=[
                "Yes, it looks like your data has run out: you have {data_left} left this month. Mobile data will work again once you add a data pack in the Example Mobile app."
            ],
            need_vals={"data_left": ["0 MB", "0 GB"]},
            tails=[""],
        ),
    ],
    follow=[
        (
            "no data on my phone",
            "Sorry about that! Please check that Airplane mode is off and Mobile data is on, then restart your phone.",
            "done that already, still nothing",
            [
                "Thanks for trying. Next, please take the SIM card out and put it back in, and check you still have data left this month, as mobile data stops when the allowance runs out.",
                'Thanks. The next step is to remove and reinsert the SIM card; if that doesn\'t help, reply "human agent" and a colleague will check your line.',
            ],
            None,
        ),
        (
            "signal problems",
            "Sorry to hear that. Please make sure Airplane mode is off, then restart your phone.",
            "still not working",
            [
                "Sorry it's still not working. Please take the SIM out and put it back in, and if there's still no signal, reply \"human agent\" and a colleague will check your line."
            ],
            None,
        ),
    ],
)

INTENT_POOLS["roaming_international"] = dict(
    noise=["name", "plan"],
    close=["", "", 'If it still doesn\'t work, restart your phone or reply "human agent".'],
    subs=[
        dict(
            tone="q",
            msgs=[
                "going to italy next week, will my phone work?",
                "how do I use my phone abroad",
                "turn on roaming",
                "travelling to the US, what do I need to do",
                "is roaming included",
                "how do i activate international roaming",
                "heading to thailand tomorrow!",
                "can I use data in Canada?",
                "what do I need to switch on before I fly",
                "Will my number work overseas?",
            ],
            cores=[
                "To use your phone abroad, switch on roaming for your line in the Example Mobile app under My plan > Roaming, which is free to switch on, and turn on Data roaming in your phone's settings when you arrive.",
                "Two things need to be on: roaming on your line, which you can switch on free of charge under My plan > Roaming in the Example Mobile app, and Data roaming in your phone's settings once you're there.",
                "Before you go, switch on roaming in the Example Mobile app under My plan > Roaming (it's free to switch on); then, when you land, turn on Data roaming in your phone's settings.",
            ],
            close=[
                "",
                "The rates for each country are shown on the same Roaming page.",
                "You'll find the rates for calls, texts and data in each country on that Roaming page.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "how much is roaming in spain?",
                "what does it cost to use data in Japan",
                "international call rates to india?",
                "how much to call the UK from here",
                "roaming prices?",
                "is calling abroad expensive",
            ],
            cores=[
                "Roaming and international call rates depend on the country and are shown on the Roaming page of the Example Mobile app, under My plan > Roaming.",
                "I can't quote rates here, but you'll find the current rates for each country on the Roaming page in the Example Mobile app.",
                "The rates for calls, texts and data vary by country and are listed on the Roaming page of the Example Mobile app, along with rates for calling abroad from home.",
            ],
            close=["", "Switching roaming on there is free."],
        ),
        dict(
            tone="p",
            msgs=[
                "roaming is on but no data",
                "abroad and internet not working even with roaming",
                "landed in Greece, no signal",
            ],
            cores=[
                "Please check that Data roaming is also switched on in your phone's settings, then restart your phone.",
                "Sorry about that. Make sure Data roaming is on in your phone's settings as well as roaming on your line, then restart the phone.",
            ],
            close=['If data still doesn\'t work after that, reply "human agent" and a colleague will help.'],
        ),
    ],
    follow=[
        (
            "going to Portugal",
            "To use your phone in Portugal, switch on roaming in the Example Mobile app under My plan > Roaming, and turn on Data roaming in your phone's settings once you arrive.",
            "does it cost anything to turn on?",
            [
                "Switching roaming on is free. The rates for using your phone in Portugal are shown on the same Roaming page of the app.",
                "No, turning roaming on is free; what you pay while abroad depends on the country, and the rates are listed on the Roaming page.",
            ],
            None,
        ),
    ],
)

ORDER_CLOSE = ["", "", "Let me know if there's anything else I can help with."]
INTENT_POOLS["order_tracking"] = dict(
    noise=["name"],
    close=ORDER_CLOSE,
    subs=[
        dict(
            tone="q",
            msgs=[
                "where is my order?",
                "track my order",
                "I ordered a phone from your store, when will it come?",
                "has my sim card shipped",
                "how do I track my online store order",
                "where's my package",
                "any update on my order?",
                "order status?",
                "when does my phone case arrive",
            ],
            cores=[
                "You can follow your order step by step in the Example Mobile app under Shop > My orders, or with the tracking link in your order confirmation email.",
                "I don't have your order details in this chat, but Shop > My orders in the Example Mobile app shows its status and tracking, and so does the tracking link in your order confirmation email.",
                "Your order's status and delivery estimate are shown in the Example Mobile app under Shop > My orders, and the tracking link in your order confirmation email works too.",
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
                "any news on my order {order_id}?",
                "has my phone shipped yet?",
                "whats happening with my order",
            ],
            cores=[
                "Your order {order_id} is currently: {order_status}.",
                "Order {order_id} shows as {order_status}.",
                "Your order {order_id} status is: {order_status}.",
            ],
            tails=[
                "You can follow it step by step in the Example Mobile app under Shop > My orders.",
                "You can follow it under Shop > My orders in the app, or with the tracking link in your order confirmation email.",
            ],
        ),
        dict(
            tone="q",
            status="shipped",
            msgs=[
                "when will my order arrive?",
                "delivery date for my order?",
                "when is my phone coming",
                "ETA?",
            ],
            cores=[
                "Your order {order_id} shows as {order_status}, and the estimated delivery is {delivery_eta}.",
                "Order {order_id} shows as {order_status}, with an estimated delivery of {delivery_eta}.",
            ],
            tails=[
                "You can follow it under Shop > My orders in the Example Mobile app.",
                "Your tracking number is {tracking_number}, and you can follow it under Shop > My orders in the app.",
            ],
        ),
        dict(
            tone="q",
            status="shipped",
            msgs=[
                "what's the tracking number?",
                "can I have my tracking number",
                "tracking no. please",
                "I need the tracking code for my order",
            ],
            cores=[
                "Your tracking number is {tracking_number}.",
                "The tracking number for order {order_id} is {tracking_number}.",
            ],
            tails=[
                "You can also follow the delivery under Shop > My orders in the Example Mobile app.",
                "The same tracking details are under Shop > My orders in the app.",
            ],
        ),
        dict(
            tone="q",
            status="pending",
            msgs=["has my order shipped yet?", "why hasn't my order shipped", "is my order on its way?"],
            cores=[
                "Not yet: your order {order_id} still shows as {order_status}, so it hasn't shipped.",
                "Your order {order_id} currently shows as {order_status}, which means it hasn't shipped yet.",
            ],
            tails=[
                "You can follow it under Shop > My orders in the Example Mobile app, and you'll be able to track it there once it's on its way."
            ],
        ),
    ],
    follow=[
        (
            "checking on my order",
            "Happy to help! Which order is it about?",
            "{order_id}",
            [
                "Thanks! Order {order_id} is currently: {order_status}. You can follow it under Shop > My orders in the Example Mobile app.",
                "Thank you. Your order {order_id} shows as {order_status}; you can follow it step by step under Shop > My orders.",
            ],
            ["order_id", "order_status"],
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
                "my order hasn't arrived",
                "package late",
                "it says delivered but I never got it",
                "still no parcel, it was due yesterday",
                "delivery never came",
                "courier says delivered, nothing here",
            ],
            cores=[
                "If it's late, please check the latest update under Shop > My orders in the Example Mobile app. If it shows as delivered but you can't find it, check with neighbours or your building's reception.",
                "Please check the tracking page under Shop > My orders for the latest update; if it says delivered, it's worth asking neighbours or your building's reception.",
                "First, have a look at the latest tracking update under Shop > My orders. If it shows as delivered and you can't find it, please ask your neighbours or building reception.",
            ],
            close=[
                'If it still doesn\'t turn up, reply "human agent" and a colleague will look into it.',
                "",
                "A colleague can review it with you if it still can't be found.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "I received the wrong item",
                "the phone arrived with a cracked screen",
                "box was damaged and the charger is broken",
                "got a case for the wrong model",
                "my order came but an accessory is damaged",
                "wrong colour phone delivered",
            ],
            cores=[
                "Please keep the packaging, take photos, and report it in the Example Mobile app under Shop > My orders > Report a problem; a colleague will review it with you.",
                "Please keep the packaging and take a photo, then report it under Shop > My orders > Report a problem in the app, and a colleague will review it with you.",
                "Keep the packaging, take some photos, and use Shop > My orders > Report a problem in the Example Mobile app to report it; a colleague will then review it with you.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="p",
            status="delivered",
            msgs=[
                "my order never arrived",
                "parcel not here but it says delivered?",
                "where's my order, nothing came",
            ],
            cores=[
                "Your order {order_id} shows as {order_status}, so please check with neighbours or your building's reception."
            ],
            tails=[
                'If you still can\'t find it, reply "human agent" and a colleague will look into it with you.',
                "If it's not there, a colleague can review it with you.",
            ],
        ),
        dict(
            tone="p",
            status="shipped",
            msgs=["my order is late", "delivery is taking forever", "it should have been here by now"],
            cores=[
                "Your order {order_id} currently shows as {order_status}.",
                "Order {order_id} shows as {order_status} at the moment.",
            ],
            tails=[
                "You can check the latest update under Shop > My orders in the Example Mobile app.",
                "Please check the latest tracking update under Shop > My orders; if it doesn't arrive, a colleague can look into it.",
            ],
        ),
    ],
)

INTENT_POOLS["order_cancel"] = dict(
    noise=["name"],
    close=ORDER_CLOSE,
    subs=[
        dict(
            tone="q",
            msgs=[
                "how do I cancel my order?",
                "cancel order",
                "I want to cancel the phone I ordered",
                "can i cancel an online store order",
                "changed my mind about my order",
                "I ordered by mistake, cancel pls",
            ],
            cores=[
                "An order can be cancelled only while it's still pending, before it ships: open Shop > My orders in the Example Mobile app, select the order and tap Cancel order. The payment goes back to your original payment method.",
                "If the order hasn't shipped yet, you can cancel it in the Example Mobile app under Shop > My orders > Cancel order, and the money goes back to your original payment method. Once it has shipped, it can't be cancelled, but you can return it after delivery.",
                "While it's still pending, go to Shop > My orders in the Example Mobile app, pick the order and tap Cancel order; your payment is returned to the original payment method.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            status="pending",
            msgs=[
                "can I still cancel my order?",
                "cancel my order please",
                "I want to cancel order {order_id}",
                "is it too late to cancel?",
            ],
            cores=[
                "Yes, your order {order_id} still shows as {order_status}, so you can cancel it: open Shop > My orders in the Example Mobile app, select it and tap Cancel order.",
                "Good news: order {order_id} shows as {order_status}, so it can still be cancelled under Shop > My orders > Cancel order in the app.",
            ],
            tails=[
                "The payment goes back to your original payment method.",
                "Your money is returned to the original payment method.",
            ],
        ),
        dict(
            tone="p",
            status="shipped",
            msgs=["cancel my order", "I need to cancel my order", "can I cancel order {order_id}?"],
            cores=[
                "I'm sorry, your order {order_id} already shows as {order_status}, so it can't be cancelled.",
                "Unfortunately order {order_id} shows as {order_status}, so it can no longer be cancelled.",
            ],
            tails=[
                "Once it's delivered, you can return it from Shop > My orders in the Example Mobile app.",
                "You can return it after it has been delivered.",
            ],
        ),
        dict(
            tone="p",
            status="delivered",
            msgs=["cancel my order please", "i want to cancel what i bought"],
            cores=[
                "Your order {order_id} already shows as {order_status}, so it can't be cancelled, but you can return it under Shop > My orders in the Example Mobile app."
            ],
            tails=[""],
        ),
    ],
)

INTENT_POOLS["order_modify"] = dict(
    noise=["name"],
    close=ORDER_CLOSE,
    subs=[
        dict(
            tone="q",
            msgs=[
                "can I change my delivery address?",
                "change colour of my phone order",
                "I want the 256GB version instead",
                "update payment method on order",
                "wrong address on my order",
                "can i edit my order",
            ],
            cores=[
                "While an order is still pending, you can change the delivery address, payment method, or the colour or storage option of the same model under Shop > My orders > Change order in the Example Mobile app. Item changes can only be made once, so make them all together.",
                "If your order hasn't shipped yet, go to Shop > My orders > Change order in the app to update the address, payment method or the model's colour or storage. Once it has shipped, it can't be changed, but a return or exchange is possible after delivery.",
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
                "need to change my order {order_id}",
                "can I still edit my order?",
            ],
            cores=[
                "Yes, your order {order_id} still shows as {order_status}, so you can change it under Shop > My orders > Change order in the Example Mobile app.",
                "Order {order_id} shows as {order_status}, so changes are still possible under Shop > My orders > Change order.",
            ],
            tails=[
                "Item changes can only be made once, so please make all of them together.",
                "Remember that item changes can be made only once per order.",
            ],
        ),
        dict(
            tone="p",
            status="shipped",
            msgs=["change address on my order", "can I switch the colour?", "edit order {order_id} please"],
            cores=[
                "I'm sorry, your order {order_id} already shows as {order_status}, so it can't be changed anymore.",
                "Unfortunately order {order_id} shows as {order_status}, so it can no longer be changed.",
            ],
            tails=[
                "After delivery, you can request a return or exchange under Shop > My orders.",
                "Once it arrives, a return or exchange is possible.",
            ],
        ),
    ],
)

INTENT_POOLS["return_exchange"] = dict(
    noise=["name"],
    close=["", "", 'If your device is faulty, reply "human agent" for help with a warranty repair.'],
    subs=[
        dict(
            tone="q",
            msgs=[
                "how do I return something?",
                "I want to exchange my phone for a different colour",
                "return policy?",
                "how long do I have to return",
                "can i send back my headphones",
                "want a refund for an accessory I don't like",
            ],
            cores=[
                "Returns and exchanges can be started once an order has been delivered, under Shop > My orders > Return or exchange in the Example Mobile app, where you'll see whether the item is eligible and the return window.",
                "Once your order has been delivered, go to Shop > My orders in the app, select it and tap Return or exchange; it shows whether the item is eligible. Exchanges are for the same model in another option, and refunds go to your original payment method.",
            ],
        ),
        dict(
            tone="p",
            msgs=[
                "my new phone is faulty",
                "the phone I bought keeps freezing",
                "charger I bought doesn't work",
                "speaker on my new phone is broken",
            ],
            cores=[
                'I\'m sorry about that. A faulty device goes through a warranty repair, so please reply "human agent" and a colleague will help.',
                'Sorry to hear it\'s faulty. Faulty devices are handled through a warranty repair: reply "human agent" and a colleague will help you with it.',
            ],
            close=[""],
        ),
    ],
    cf=[
        dict(
            tone="q",
            status="delivered",
            msgs=["I want to return my order", "can I exchange it?", "return order {order_id}"],
            cores=[
                "Your order {order_id} shows as {order_status}, so you can start a return or exchange under Shop > My orders > Return or exchange in the Example Mobile app."
            ],
            tails=[
                "You'll see there whether the item is eligible, and any refund goes to your original payment method.",
                "You'll then get an email explaining how to send it back.",
            ],
        ),
        dict(
            tone="q",
            status="shipped",
            msgs=["I want to return my order", "how do I return this"],
            cores=[
                "Your order {order_id} still shows as {order_status}, and returns can be started once it's delivered."
            ],
            tails=[
                "After it arrives, go to Shop > My orders > Return or exchange in the Example Mobile app."
            ],
        ),
    ],
)

INTENT_POOLS["promo_coupon_pricing"] = dict(
    noise=["name"],
    close=["", 'For a price adjustment or another question about an offer, reply "human agent".'],
    subs=[
        dict(
            tone="p",
            msgs=[
                "my promo code isn't working",
                "coupon says invalid",
                "discount didn't apply at checkout",
                "voucher code expired?",
                "the code from your email doesn't work",
            ],
            cores=[
                "Please check the code's expiry date and conditions (eligible products or plans, minimum spend) in the offer details, and enter it exactly as shown at checkout before you pay.",
                "Codes only work if they haven't expired and the order meets the conditions, such as eligible products or plans and a minimum spend, so please check the offer details and enter the code exactly at checkout.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "can you price match?",
                "the phone is cheaper now, can I get the difference",
                "any discounts available?",
                "I forgot to use my code, can you add it?",
            ],
            cores=[
                'I can\'t promise a price adjustment or extra discount in this chat, but a human agent can review it: just reply "human agent".',
                "Codes can't be added to an order after it has been placed, and price adjustments are reviewed by a colleague, so please reply \"human agent\" if you'd like that checked.",
            ],
            close=[""],
        ),
    ],
)

INTENT_POOLS["product_presales_inquiry"] = dict(
    noise=["name"],
    close=["", 'If you\'d like help choosing, reply "human agent" and a colleague will advise you.'],
    subs=[
        dict(
            tone="q",
            msgs=[
                "do you have the new Samsung in stock?",
                "how much is the iPhone?",
                "what phones do you sell",
                "is the pixel available",
                "delivery options for accessories?",
                "specs of your cheapest phone?",
                "do you sell tablets",
            ],
            cores=[
                "Current prices, specifications and stock for each phone and accessory are shown in the Shop section of the Example Mobile app or website, and the delivery options for your address appear at checkout.",
                "You'll find prices, stock and specs for every product in the Shop section of the Example Mobile app or website. Delivery options and costs are shown at checkout.",
            ],
        ),
    ],
    cf=[
        dict(
            tone="q",
            msgs=[
                "is this one in stock?",
                "how much is it and when can you deliver",
                "what colours does it come in?",
            ],
            cores=[
                "The price, colours and stock for the {item} are shown on its page in the Shop section of the Example Mobile app or website.",
                "You'll see the current price, stock and specs for the {item} on its product page in the Shop section of the app or website.",
            ],
            tails=["Delivery options for your address appear at checkout.", ""],
        ),
    ],
)

INTENT_POOLS["account_manage"] = dict(
    noise=["name"],
    close=["", "", "Please don't send ID documents or passwords in this chat."],
    subs=[
        dict(
            tone="q",
            msgs=[
                "how do I change my email?",
                "update my address",
                "new phone number for contact",
                "stop marketing emails",
                "change contact details",
                "I moved, where do I update my address",
                "opt out of promotional texts",
            ],
            cores=[
                "You can update your email, postal address, contact number and marketing preferences in the Example Mobile app under Profile > Personal details; changes apply as soon as you save them.",
                "Go to Profile > Personal details in the Example Mobile app to change your contact details or marketing preferences; they're updated as soon as you save.",
            ],
        ),
        dict(
            tone="q",
            msgs=[
                "change the account holder name",
                "transfer my account to my husband",
                "close my account",
                "put the contract in my daughter's name",
            ],
            cores=[
                'Changing the account holder\'s name, transferring ownership or closing the account needs an identity check by a human agent, so please reply "human agent" and a colleague will help.',
                'That needs an identity check by a colleague, so please reply "human agent" and they\'ll help you with it.',
            ],
            close=["Please don't send ID documents in this chat.", ""],
        ),
    ],
)

INTENT_POOLS["app_website_issue"] = dict(
    noise=["name"],
    close=[
        "",
        'If it keeps failing, reply "human agent" and we\'ll look into it.',
        "Let me know if that helps.",
    ],
    subs=[
        dict(
            tone="p",
            msgs=[
                "the app keeps crashing",
                "app won't open",
                "website not loading",
                "error message when I log in to the app",
                "app is frozen on the loading screen",
                "can't see my bill in the app, blank page",
                "website shows error 500",
                "app super slow",
            ],
            cores=[
                "Please make sure the Example Mobile app is updated to the latest version, then close and reopen it.",
                "First, update the app to the latest version and close and reopen it; if that doesn't help, sign out and back in.",
                "Try signing out and back in, and switching between Wi-Fi and mobile data to rule out a connection problem.",
                "On the website, please clear your browser's cache and cookies or try another browser.",
            ],
            close=[
                'If it keeps failing, reply "human agent" and we\'ll look into it.',
                "Let me know if that helps.",
                "",
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
            msgs=[
                "hi",
                "hello",
                "hey there",
                "good morning",
                "hello?",
                "hiya",
                "good evening",
                "hi, anyone there?",
                "hello hello",
                "morning!",
            ],
            cores=[
                "Hello, and thanks for contacting Example Mobile! What can I help you with today?",
                "Hi! Thanks for getting in touch with Example Mobile. How can I help?",
                "Hello! I'm the Example Mobile virtual assistant. What can I do for you today?",
                "Hi there, welcome to Example Mobile! How can I help you today?",
                "Yes, I'm here! Thanks for contacting Example Mobile. What can I help you with?",
                "Good to hear from you, and thanks for contacting Example Mobile. What can I do for you?",
            ],
        ),
        dict(
            tone="g",
            msgs=[
                "thanks",
                "thank you!",
                "cheers",
                "great, thanks for your help",
                "bye",
                "that's all, thanks",
                "ok thank you bye",
                "thank u so much",
                "you've been helpful, bye",
            ],
            cores=[
                "You're welcome! Thanks for contacting Example Mobile, and have a great day.",
                "Glad I could help. Take care!",
                "You're very welcome. Have a lovely day!",
                "Happy to help! Thanks for choosing Example Mobile.",
                "It was a pleasure. Goodbye, and have a great day!",
                "You're welcome! If you need anything else, just message us here.",
            ],
        ),
        dict(
            tone="g",
            msgs=[
                "are you a bot?",
                "am I talking to a human?",
                "is this a real person",
                "what can you do?",
                "who are you",
                "r u a robot",
                "what kind of things can you help with",
            ],
            cores=[
                "I'm the Example Mobile virtual assistant, not a person. I can help with your bill and payments, balance and data, plans, network or roaming problems, your SIM card and orders from our online store.",
                "I'm Example Mobile's virtual assistant rather than a person. I can help with bills, payments, balance and data, plans, network and roaming problems, SIM cards and online store orders.",
                "You're chatting with the Example Mobile virtual assistant, not a human. I can help with your bill, payments, data and balance, plans, network or roaming issues, your SIM and store orders.",
            ],
        ),
        dict(
            tone="g",
            msgs=["how are you today?", "having a rough day tbh", "you're doing a great job", "lol ok"],
            cores=[
                "Thanks for asking! I'm the Example Mobile virtual assistant, and I'm here to help. What can I do for you?",
                "Thank you, that's kind of you! Is there anything I can help you with today?",
                "I'm sorry to hear that, and I hope I can make things a little easier. What can I help you with?",
            ],
        ),
    ],
    cf=[
        dict(
            tone="g",
            msgs=["hi", "hello there", "good morning!", "hey"],
            cores=[
                "Hi {name}, thanks for contacting Example Mobile! What can I help you with today?",
                "Hello {name}! Thanks for getting in touch with Example Mobile. How can I help?",
                "Good to see you, {name}. I'm the Example Mobile virtual assistant. What can I do for you today?",
            ],
            tails=[""],
        ),
        dict(
            tone="g",
            msgs=["thanks, bye", "thank you!", "that's everything, thanks"],
            cores=[
                "You're welcome, {name}! Have a great day.",
                "Glad I could help, {name}. Take care!",
                "You're very welcome, {name}. Thanks for contacting Example Mobile!",
            ],
            tails=[""],
        ),
    ],
)

GREET = [
    ("hi", "Hi! Thanks for contacting Example Mobile. How can I help?"),
    ("hello", "Hello, and thanks for getting in touch with Example Mobile! What can I do for you?"),
    ("hey", "Hi there! How can I help you today?"),
    ("good afternoon", "Good afternoon, and thanks for contacting Example Mobile! How can I help?"),
]
ASK_ORDER = [
    ("question about my order", "Of course! Which order is it about?"),
    ("I have an order problem", "I'm sorry to hear that. Which order is it?"),
    ("my store order", "Happy to help. Could you tell me which order it is?"),
]
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
    "You're very welcome, and thanks for contacting Example Mobile.",
    "Happy to help! Have a lovely day.",
    "Any time! Thanks for choosing Example Mobile.",
    "You're welcome. Enjoy the rest of your day!",
]
OPEN = {
    "g": [""],
    "n": ["", "", "Thanks for asking. ", "I understand. "],
    "q": ["", "", "", "Sure! ", "Happy to help. ", "Of course. ", "Good question. ", "Sure thing. "],
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
ALSO = ["also, ", "one more thing: ", "another question, ", "ok and ", "thanks. and ", "and "]
ASK_WHICH = [
    "Happy to help! Which order is it about?",
    "Of course. Could you tell me the order number?",
    "Sure, which order is it?",
    "I can help with that. Which order do you mean?",
]
BARE_ID = [
    "{order_id}",
    "it's {order_id}",
    "order {order_id}",
    "{order_id} thanks",
    "the number is {order_id}",
]
THANKS_LEAD = ["Thanks!", "Thank you.", "Thanks for that.", "Got it, thanks."]
BYE2 = [
    "",
    "If anything else comes up, just message us here.",
    "Enjoy the rest of your day.",
    "We're here whenever you need us.",
]

# ---- fully hand-written conversations: (intent, context, history turns [user, assistant, ...], message, reply)
HAND = [
    (
        "balance_usage_inquiry",
        {"data_left": "2.4 GB", "plan": "Essential 10GB"},
        [],
        "how much data is left on my plan? going on a road trip this weekend",
        "You have 2.4 GB of data left this month on your Essential 10GB plan. If you think you'll need more for the road trip, you can add a data pack in the Example Mobile app under My plan > Add-ons.",
    ),
    (
        "balance_usage_inquiry",
        {"balance": "$0.45"},
        [],
        "my calls aren't going through, do I have any credit??",
        "Your balance is $0.45, which may be why your calls aren't going through. You can top up in the Example Mobile app under Billing > Top up, and check your credit any time by dialling *100#.",
    ),
    (
        "balance_usage_inquiry",
        {"name": "Sven", "data_left": "11 GB", "balance": "$18.00"},
        [],
        "Good afternoon. Could you please confirm my remaining data and credit balance?",
        "Good afternoon, Sven. You have 11 GB of data left this month, and your balance is $18.00. You can check both at any time under My usage in the Example Mobile app or by dialling *100#.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [],
        "wat is my balence",
        "I can't see your balance in this chat, but you can find it under My usage on the Example Mobile app's home screen. You can also dial *100# from your phone for an instant update.",
    ),
    (
        "balance_usage_inquiry",
        {"data_left": "300 MB"},
        [],
        "Netflix keeps buffering, am I running out of data or something",
        "You have 300 MB of data left this month, so you're getting close to the end of your allowance. You can add a data pack under My plan > Add-ons in the Example Mobile app to keep streaming.",
    ),
    (
        "balance_usage_inquiry",
        {"plan": "Family Share 50GB", "data_left": "17.5 GB"},
        [],
        "is the data shared between all of us? how much is left",
        "There's 17.5 GB of data left this month on your Family Share 50GB plan. For a breakdown of your usage, open My usage on the Example Mobile app's home screen.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [],
        "My son says I've been using loads of data but I don't think so. How do I check?",
        "You can see exactly how much data you've used and how much is left under My usage on the home screen of the Example Mobile app. Dialling *100# from your phone gives you the same figures.",
    ),
    (
        "balance_usage_inquiry",
        {"data_left": "6.8 GB"},
        ["hi", "Hi! Thanks for contacting Example Mobile. How can I help?"],
        "checking my data",
        "Sure: you have 6.8 GB of data left this month. You can keep track of it under My usage in the Example Mobile app or by dialling *100#.",
    ),
    (
        "balance_usage_inquiry",
        {"balance": "$31.20", "plan": "Prepaid Smart 15GB"},
        [],
        "prepaid customer here. balance pls",
        "Your balance is $31.20 on your Prepaid Smart 15GB plan. You can check it again at any time by dialling *100#.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [],
        "does *100# work when I'm abroad?",
        "Dialling *100# shows your credit, data, minutes and texts, and the same figures are under My usage on the Example Mobile app's home screen, which works wherever you can get online.",
    ),
    (
        "balance_usage_inquiry",
        {"data_left": "0 MB", "name": "Kayla"},
        [],
        "ughhh i'm out of data again aren't i",
        "I'm afraid so, Kayla: you have 0 MB of data left this month. You can add a data pack or move to a bigger plan in the Example Mobile app to get back online.",
    ),
    (
        "balance_usage_inquiry",
        {"plan": "Go 2GB"},
        [],
        "what plan am i on, and is there a bigger one?",
        "You're on the Go 2GB plan. You can compare it with the other plans available to you, and their prices, in the Example Mobile app under My plan > Change plan.",
    ),
    (
        "billing_inquiry",
        {"bill_amount": "$74.10", "due_date": "2026-12-19"},
        [],
        "hey what's the damage this month lol",
        "Your latest bill is $74.10, due on 2026-12-19. You can see every charge behind it in the Example Mobile app under Billing > Bills.",
    ),
    (
        "billing_inquiry",
        {"bill_amount": "$29.99"},
        [],
        "Could you tell me how much my last invoice came to? I'm doing my monthly budget.",
        "Of course: your latest bill is $29.99. You can download a PDF copy for your records from Billing > Bills in the Example Mobile app.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "what's this 'add-on' line on my bill mean",
        'You can see each charge with its description by opening the bill under Billing > Bills in the Example Mobile app. If a charge there doesn\'t look right, reply "human agent" and a colleague will go through it with you.',
    ),
    (
        "billing_inquiry",
        {"due_date": "2027-01-05", "name": "Frank"},
        [],
        "When is this month's payment due? I get paid on the 3rd.",
        "Hi Frank, your next payment is due on 2027-01-05. You can see the full bill under Billing > Bills in the Example Mobile app.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "i need every invoice from this year for work expenses",
        "You can download each of your invoices as a PDF from Billing > Bills in the Example Mobile app: tap a bill, then download it. Your past bills are all listed on that page.",
    ),
    (
        "billing_inquiry",
        {"bill_amount": "$112.48", "due_date": "2026-12-28"},
        [],
        "whoa why is my bill over a hundred dollars",
        "Your latest bill is $112.48, due on 2026-12-28. To see what's behind it, open Billing > Bills in the Example Mobile app and tap the bill for the itemised view; if a charge looks wrong, a human agent can review it with you.",
    ),
    (
        "billing_inquiry",
        {"bill_amount": "$45.00"},
        [
            "where do i see my bill",
            "You can see every charge in the Example Mobile app under Billing > Bills.",
        ],
        "just tell me the total",
        "Sure, your latest bill is $45.00.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "Is the bill sent by post or only online?",
        "Your bills are always available in the Example Mobile app under Billing > Bills, where you can open each one and download a PDF copy. If you need something else, a human agent can help.",
    ),
    (
        "payment_issue",
        {},
        [],
        "my payment failed but i'm sure there's money in my account",
        "Sorry about that. Please check that the card hasn't expired, then try again; if it still fails, you can add another card or PayPal under Billing > Payment methods in the Example Mobile app.",
    ),
    (
        "payment_issue",
        {"name": "Ines"},
        [],
        "I got a new debit card because the old one was lost, how do I update it for my phone bill?",
        "Thanks for asking, Ines. You can add your new card under Billing > Payment methods in the Example Mobile app and use it for your next payment. Please don't type the card details in this chat.",
    ),
    (
        "payment_issue",
        {},
        [],
        "Can I give you my card number so you can take the payment?",
        "Thanks, but please don't share your card number in this chat: for your security we never take card details here. You can pay safely in the Example Mobile app under Billing > Pay bill, after adding your card under Billing > Payment methods.",
    ),
    (
        "payment_issue",
        {},
        [],
        "paid twice by accident??",
        'Sorry about that. If money has left your account but something doesn\'t add up on your bill, a human agent can check it: just reply "human agent".',
    ),
    (
        "payment_issue",
        {},
        [
            "my card keeps getting declined",
            "Sorry about that! Please check that your card hasn't expired and has enough funds, then try again.",
        ],
        "it's not expired and i have money. what else?",
        'Thanks for checking. You could add another card or PayPal under Billing > Payment methods in the Example Mobile app and pay with that; if payments keep failing, reply "human agent" and a colleague will look into it.',
    ),
    (
        "payment_issue",
        {},
        [],
        "PayPal option?",
        "Yes, you can add PayPal under Billing > Payment methods in the Example Mobile app and use it for your payments.",
    ),
    (
        "pay_bill_topup",
        {"bill_amount": "$56.30", "due_date": "2026-12-09"},
        [],
        "Hi, I'd like to pay what I owe today.",
        "Your amount due is $56.30, due by 2026-12-09. You can pay it right now in the Example Mobile app under Billing > Pay bill, using a saved card or PayPal.",
    ),
    (
        "pay_bill_topup",
        {},
        [],
        "how do i top up my mum's phone, she's prepaid",
        "You can top up a prepaid line in the Example Mobile app under Billing > Top up: choose the amount and pay with a saved card or PayPal.",
    ),
    (
        "pay_bill_topup",
        {},
        [],
        "line suspended. paid now. still nothing works!!",
        "Sorry for the trouble. Once the overdue amount is paid, the line can be reconnected, and you'll need to restart your phone so it picks up the service again. If it still doesn't work after a restart, reply \"human agent\" and a colleague will check your line.",
    ),
    (
        "pay_bill_topup",
        {"balance": "$4.60", "name": "Luca"},
        [],
        "ciao, need to add credit",
        "Hi Luca, your current balance is $4.60. You can add credit in the Example Mobile app under Billing > Top up, choosing the amount and paying with a saved card or PayPal.",
    ),
    (
        "pay_bill_topup",
        {},
        [],
        "Is autopay safe? I don't like things coming out automatically",
        "Autopay is optional: if you switch it on under Billing > Pay bill in the Example Mobile app, each bill is paid with your saved card or PayPal, and you can switch it off on the same page. If you prefer, you can keep paying each bill yourself there.",
    ),
    (
        "pay_bill_topup",
        {"bill_amount": "$38.75"},
        [
            "can I pay my bill through you",
            "Of course. You can pay in the Example Mobile app under Billing > Pay bill.",
        ],
        "how much will it be",
        "Your amount due is $38.75.",
    ),
    (
        "plan_change",
        {"plan": "Student 30GB"},
        [],
        "I'm graduating, can I keep my student plan?",
        "Congratulations! You're currently on the Student 30GB plan; to see what's available to you and the prices, open My plan > Change plan in the Example Mobile app. For questions about your contract, reply \"human agent\".",
    ),
    (
        "plan_change",
        {},
        [],
        "Whats the cheapest unlimited plan you've got",
        "I can't quote plans or prices here, but every plan available to you, with its monthly price, is listed in the Example Mobile app under My plan > Change plan. The new price is shown for you to confirm before anything changes.",
    ),
    (
        "plan_change",
        {"plan": "Unlimited Plus", "name": "Greta"},
        [],
        "I barely use data, thinking I should go down to something smaller",
        "That makes sense, Greta. You're currently on Unlimited Plus, and you can compare smaller plans and their prices under My plan > Change plan in the Example Mobile app; nothing changes until you confirm the new price.",
    ),
    (
        "plan_change",
        {},
        [],
        "when does a new plan start if I change today?",
        "When you choose a new plan under My plan > Change plan in the Example Mobile app, the start date and new price are shown for you to confirm before anything changes.",
    ),
    (
        "plan_change",
        {},
        [],
        "need 5GB more just this month",
        "You can add a data pack for this month under My plan > Add-ons in the Example Mobile app, without changing your plan. The packs and their prices are shown there.",
    ),
    (
        "plan_change",
        {},
        [
            "I want to change my plan",
            "Of course! You can see the plans available to you in the Example Mobile app under My plan > Change plan.",
        ],
        "can someone just do it for me",
        'Of course: reply "human agent" and a colleague will walk you through it. They\'ll confirm the new price with you before anything changes.',
    ),
    (
        "network_fault",
        {},
        [],
        "Since the storm last night I've had no signal at all",
        "Sorry about that. Please restart your phone and check that Airplane mode is off; I can't see outage information here, so if there's still no signal afterwards, reply \"human agent\" and a colleague will check your line.",
    ),
    (
        "network_fault",
        {},
        [],
        "5g icon shows but nothing loads",
        "Sorry for the trouble. Please turn off Data Saver and any VPN in your phone's settings, then restart the phone and try again.",
    ),
    (
        "network_fault",
        {"data_left": "4.1 GB"},
        [],
        "internet not working on my phone since this morning",
        "Sorry about that. You still have 4.1 GB of data left, so your allowance isn't the problem. Please check that Airplane mode is off and Mobile data is on, then restart your phone.",
    ),
    (
        "network_fault",
        {},
        [
            "no mobile data",
            "Sorry about that! Please check that Airplane mode is off and Mobile data is on, then restart your phone.",
        ],
        "still nothing after restart, and I took the sim out and back in too",
        'Thanks for trying all of that. Please check you still have data left this month, as mobile data stops when the allowance runs out; if you do, reply "human agent" and a colleague will check your line.',
    ),
    (
        "network_fault",
        {},
        [],
        "calls drop every few minutes at my house",
        "I'm sorry, that's frustrating. Please restart your phone, and if the signal indoors is weak, switch on Wi-Fi Calling so calls go over your Wi-Fi. If calls keep dropping, reply \"human agent\" and a colleague will check your line.",
    ),
    (
        "network_fault",
        {},
        [],
        "my phone says SIM not recognised",
        'Sorry about that. Please restart your phone, and if the message stays, take the SIM card out and put it back in. If it still isn\'t recognised, reply "human agent" and a colleague will check your line.',
    ),
    (
        "network_fault",
        {"data_left": "0 GB", "name": "Ahmed"},
        [],
        "why can't I use whatsapp outside of wifi",
        "Hi Ahmed, your data allowance has run out: you have 0 GB left this month, so mobile data has stopped. You can add a data pack in the Example Mobile app to get WhatsApp working away from Wi-Fi again.",
    ),
    (
        "network_fault",
        {},
        [],
        "Is there an outage in Leeds right now?",
        "I'm not able to see outage information in this chat, sorry. If you're having trouble, try restarting your phone and checking that Mobile data is on, and reply \"human agent\" if it still doesn't work so a colleague can check your line.",
    ),
    (
        "roaming_international",
        {},
        [],
        "Heading to Mexico for my honeymoon! Anything I should do with my phone?",
        "Congratulations! Before you go, switch on roaming in the Example Mobile app under My plan > Roaming (it's free to switch on), then turn on Data roaming in your phone's settings when you arrive. The rates for Mexico are listed on the same Roaming page.",
    ),
    (
        "roaming_international",
        {},
        [],
        "how much to text someone in australia",
        "The rate for texting abroad is shown per country on the Roaming page of the Example Mobile app, so you'll find the current rate for Australia there.",
    ),
    (
        "roaming_international",
        {},
        [],
        "I'm in Turkey, roaming on, data roaming on, restarted, still no internet",
        'Sorry about that, and thanks for trying all of those steps. Please reply "human agent" and a colleague will help you get connected.',
    ),
    (
        "roaming_international",
        {"name": "Beth"},
        [],
        "will I be charged for incoming calls abroad?",
        "Hi Beth, the rates for using your phone abroad, including calls, depend on the country and are listed on the Roaming page of the Example Mobile app. Roaming itself is free to switch on there.",
    ),
    (
        "roaming_international",
        {},
        [
            "going to canada next week",
            "To use your phone in Canada, switch on roaming in the Example Mobile app under My plan > Roaming, and turn on Data roaming in your phone's settings when you arrive.",
        ],
        "do i need to turn it off when i'm back?",
        "You can switch roaming off again under My plan > Roaming in the Example Mobile app whenever you like, and turn off Data roaming in your phone's settings too.",
    ),
    (
        "order_tracking",
        {"order_id": "EM-48820", "order_status": "Out for delivery"},
        [],
        "Is my new phone coming today?",
        "Good news: your order EM-48820 is out for delivery. You can follow it in the Example Mobile app under Shop > My orders.",
    ),
    (
        "order_tracking",
        {
            "order_id": "EM-66102",
            "order_status": "Shipped",
            "delivery_eta": "2026-12-07",
            "tracking_number": "UP4418290377",
        },
        [],
        "order EM-66102 any news?",
        "Your order EM-66102 has shipped, and the estimated delivery is 2026-12-07. Your tracking number is UP4418290377, which you can also follow under Shop > My orders in the Example Mobile app.",
    ),
    (
        "order_tracking",
        {"order_id": "EM-51234", "order_status": "Delivered"},
        [],
        "did my sim card arrive? i'm not home",
        "Your order EM-51234 shows as delivered. If you can't find it when you get home, please check with neighbours or your building's reception.",
    ),
    (
        "order_tracking",
        {},
        [],
        "I bought earbuds from your shop but never got a confirmation email",
        'You can check your order in the Example Mobile app under Shop > My orders, which shows its status and tracking. If the order isn\'t there, reply "human agent" and a colleague will help.',
    ),
    (
        "order_tracking",
        {"order_id": "EM-70055", "order_status": "Pending"},
        ["where is my order", "Happy to help! Which order is it about?"],
        "EM-70055",
        "Thanks! Your order EM-70055 is still pending, so it hasn't shipped yet. You can follow it under Shop > My orders in the Example Mobile app.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "the courier threw my parcel over the fence and the phone box is dented",
        "I'm sorry your parcel was handled like that. Please keep the packaging, take photos of the damage, and report it under Shop > My orders > Report a problem in the Example Mobile app; a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {"order_id": "EM-64417", "order_status": "In transit"},
        [],
        "my case was supposed to come 3 days ago!!",
        "I'm sorry it's late. Your order EM-64417 is still in transit; you can check the latest update under Shop > My orders in the Example Mobile app. If it still doesn't arrive, reply \"human agent\" and a colleague will look into it.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "I got a black phone but I ordered the green one",
        "Sorry you received the wrong colour. Please keep the packaging, take a photo, and report it under Shop > My orders > Report a problem in the Example Mobile app, and a colleague will review it with you.",
    ),
    (
        "delivery_problem",
        {"order_id": "EM-55671", "order_status": "Delivered", "name": "Noor"},
        [],
        "it says delivered, I was home all day and nobody came",
        "I'm sorry, Noor. Your order EM-55671 shows as delivered, so please check with neighbours or your building's reception in case it was left with them. If it's not there, reply \"human agent\" and a colleague will look into it with you.",
    ),
    (
        "order_cancel",
        {"order_id": "EM-73310", "order_status": "Pending"},
        [],
        "found it cheaper elsewhere, want to cancel",
        "No problem: your order EM-73310 is still pending, so you can cancel it under Shop > My orders > Cancel order in the Example Mobile app. The payment goes back to your original payment method.",
    ),
    (
        "order_cancel",
        {"order_id": "EM-42987", "order_status": "Out for delivery"},
        [],
        "CANCEL MY ORDER NOW",
        "I'm sorry, your order EM-42987 is already out for delivery, so it can't be cancelled. Once it's delivered, you can return it from Shop > My orders in the Example Mobile app.",
    ),
    (
        "order_cancel",
        {},
        [],
        "where does the money go if I cancel?",
        "If you cancel an order while it's still pending, the payment goes back to your original payment method. You can cancel under Shop > My orders > Cancel order in the Example Mobile app.",
    ),
    (
        "order_modify",
        {"order_id": "EM-69021", "order_status": "Pending"},
        [],
        "i want to pay with paypal instead of my card for my order",
        "Your order EM-69021 is still pending, so you can change the payment method under Shop > My orders > Change order in the Example Mobile app.",
    ),
    (
        "order_modify",
        {},
        [],
        "Can I change from the 128GB to the 256GB version after ordering?",
        "If the order hasn't shipped yet, you can change the storage option of the same model under Shop > My orders > Change order in the Example Mobile app. Item changes can only be made once, so please make all of them together.",
    ),
    (
        "order_modify",
        {"order_id": "EM-58846", "order_status": "Shipped"},
        [],
        "need to change the delivery address, I'm moving",
        "I'm sorry, your order EM-58846 has already shipped, so the address can't be changed now. You can follow it under Shop > My orders, and a return is possible once it's delivered.",
    ),
    (
        "return_exchange",
        {},
        [],
        "bought a case that doesn't fit my phone, can I swap it?",
        "Once the order has been delivered, you can start an exchange under Shop > My orders > Return or exchange in the Example Mobile app, where you'll see whether the item is eligible. Exchanges are for the same model in another option.",
    ),
    (
        "return_exchange",
        {"order_id": "EM-47761", "order_status": "Delivered", "item": "wireless earbuds"},
        [],
        "the earbuds keep disconnecting",
        'Sorry the wireless earbuds aren\'t working properly. A faulty device goes through a warranty repair, so please reply "human agent" and a colleague will help with order EM-47761.',
    ),
    (
        "return_exchange",
        {"order_id": "EM-60982", "order_status": "Delivered"},
        [],
        "not happy with the phone, want my money back",
        "Sorry it's not what you hoped for. Your order EM-60982 shows as delivered, so you can start a return under Shop > My orders > Return or exchange, where you'll see whether it's eligible; any refund goes to your original payment method.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "the black friday code isn't working on the plan",
        "Sorry the code isn't working. Please check its expiry date and conditions in the offer details, such as eligible products or plans and minimum spend, and enter it exactly as shown at checkout before you pay.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "can u give me a discount, been a customer for years",
        'Thank you for being with us! I can\'t offer extra discounts in this chat, but a human agent can look into offers for you: just reply "human agent".',
    ),
    (
        "product_presales_inquiry",
        {},
        [],
        "does the galaxy come with a charger in the box",
        "The full specifications and what's included are shown on each phone's page in the Shop section of the Example Mobile app or website. If you'd like help choosing, reply \"human agent\".",
    ),
    (
        "product_presales_inquiry",
        {"item": "Galaxy A56"},
        [],
        "is this one available in blue",
        "The colours and stock for the Galaxy A56 are shown on its page in the Shop section of the Example Mobile app or website. Delivery options for your address appear at checkout.",
    ),
    (
        "account_manage",
        {},
        [],
        "I want to change my email address on my account",
        "You can change your email in the Example Mobile app under Profile > Personal details; the change applies as soon as you save it.",
    ),
    (
        "account_manage",
        {},
        [],
        "can I send you a copy of my ID to change the account name?",
        "Please don't send ID documents in this chat. Changing the account holder's name needs an identity check by a human agent, so reply \"human agent\" and a colleague will help.",
    ),
    (
        "app_website_issue",
        {},
        [],
        "app logs me out every time I close it",
        'Sorry about that. Please make sure the Example Mobile app is updated to the latest version, then sign out and back in. If it keeps happening, reply "human agent" and we\'ll look into it.',
    ),
    (
        "app_website_issue",
        {},
        [
            "app won't load",
            "Sorry about that! Please update the Example Mobile app to the latest version, then close and reopen it.",
        ],
        "updated it, still stuck",
        "Thanks for updating. Please sign out and back in, and try switching between Wi-Fi and mobile data; if it's still stuck, reply \"human agent\" and we'll look into it.",
    ),
    (
        "greeting_chitchat",
        {},
        [],
        "hello! first time using this chat",
        "Welcome, and thanks for contacting Example Mobile! I'm the virtual assistant, and I can help with your bill, balance and data, plans, network or roaming problems, your SIM and store orders. What can I do for you?",
    ),
    (
        "greeting_chitchat",
        {"name": "Walter"},
        [],
        "thank you young man",
        "You're very welcome, Walter! I'm the Example Mobile virtual assistant rather than a person, but I'm glad I could help.",
    ),
    (
        "greeting_chitchat",
        {},
        [
            "how do I check my data",
            "You can see it under My usage on the Example Mobile app's home screen, or by dialling *100#.",
        ],
        "perfect, that's all I needed",
        "Great, glad that helped! Have a lovely day.",
    ),
]
INTENT_POOLS["promo_coupon_pricing"]["subs"][1]["tone"] = "n"
INTENT_POOLS["plan_change"]["subs"][3]["tone"] = "n"
INTENT_POOLS["return_exchange"]["cf"][1]["tone"] = "n"
INTENT_POOLS["order_tracking"]["cf"][3]["tone"] = "n"

HAND += [
    (
        "balance_usage_inquiry",
        {"data_left": "1.1 GB", "plan": "Flex 5GB"},
        [],
        "helo can u tel me how much data i got",
        "Hello! You have 1.1 GB of data left this month on your Flex 5GB plan. You can check it any time under My usage in the Example Mobile app or by dialling *100#.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [
            "how much data do I have left?",
            "I can't see your usage in this chat, but you'll find it under My usage on the Example Mobile app's home screen, or by dialling *100#.",
        ],
        "which one is quicker?",
        "Dialling *100# is usually the quickest, as it works straight from your phone without signing in. The app's My usage page shows the same figures in more detail.",
    ),
    (
        "balance_usage_inquiry",
        {"balance": "$12.75", "data_left": "5.3 GB", "name": "Olu"},
        [],
        "Morning! Balance and data please, about to travel for work.",
        "Good morning, Olu! Your balance is $12.75, and you have 5.3 GB of data left this month. If you're travelling abroad, remember to switch on roaming in the app under My plan > Roaming before you go.",
    ),
    (
        "balance_usage_inquiry",
        {},
        [],
        "I'm so confused, the app says one thing and my phone's data counter says another",
        "I understand, that can be confusing. The figures under My usage in the Example Mobile app, or from dialling *100#, are the ones on your account; your phone's own counter may be measuring a different period.",
    ),
    (
        "balance_usage_inquiry",
        {"data_left": "9.9 GB"},
        [],
        "data?",
        "You have 9.9 GB of data left this month.",
    ),
    (
        "balance_usage_inquiry",
        {"plan": "Unlimited Max", "balance": "$0.00"},
        [],
        "why does my balance say zero, I'm on a contract",
        "Your balance is $0.00 and you're on the Unlimited Max plan. Your allowance and any charges are shown under My usage and Billing > Bills in the Example Mobile app; if something looks wrong, a human agent can check it with you.",
    ),
    (
        "billing_inquiry",
        {"bill_amount": "$58.40", "due_date": "2026-12-17"},
        ["hello", "Hello, and thanks for getting in touch with Example Mobile! What can I do for you?"],
        "got a bill notification, how much is it",
        "Your latest bill is $58.40, due on 2026-12-17. You can open it under Billing > Bills in the Example Mobile app to see each charge.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "Why am I being charged for a month I haven't finished yet?",
        'The itemised view of your bill, under Billing > Bills in the Example Mobile app, shows each charge with its description and period. If a charge there doesn\'t look right, reply "human agent" and a colleague will go through it with you.',
    ),
    (
        "billing_inquiry",
        {"bill_amount": "$33.20", "due_date": "December 21"},
        [],
        "my husband usually handles this but he's away. can you tell me what we owe and by when?",
        "Of course: your latest bill is $33.20, due on December 21. You can pay it in the Example Mobile app under Billing > Pay bill, and see the full bill under Billing > Bills.",
    ),
    (
        "billing_inquiry",
        {},
        [],
        "can I get paper bills instead",
        "Your bills are available in the Example Mobile app under Billing > Bills, where you can download each one as a PDF and print it. For anything else about how you receive your bills, a human agent can help.",
    ),
    ("billing_inquiry", {"bill_amount": "$87.65"}, [], "bill amt pls", "Your latest bill is $87.65."),
    (
        "billing_inquiry",
        {"due_date": "2026-12-30"},
        ["what's my due date", "Your next payment is due on 2026-12-30."],
        "and can I pay it early?",
        "Yes, you can pay before the due date in the Example Mobile app under Billing > Pay bill, with a saved card or PayPal.",
    ),
    (
        "payment_issue",
        {},
        [],
        "your app keeps saying 'card not supported'",
        "Sorry about that. Please try adding another card or PayPal under Billing > Payment methods in the Example Mobile app and paying with that instead. Please don't share your card details here.",
    ),
    (
        "payment_issue",
        {"name": "Dev"},
        [],
        "i think my bank blocked the payment to you",
        "Sorry about that, Dev. Once your bank has cleared it, please try the payment again, or add another card or PayPal under Billing > Payment methods in the app.",
    ),
    (
        "payment_issue",
        {},
        [
            "payment failed",
            "Sorry about that! Please check that your card hasn't expired and has enough available funds, then try again.",
        ],
        "it went through now but i think i got charged twice",
        'Glad the payment went through. If it looks like you\'ve been charged twice, please reply "human agent" and a colleague will check it for you.',
    ),
    (
        "payment_issue",
        {},
        [],
        "how do I remove my old card",
        "You can manage your saved cards under Billing > Payment methods in the Example Mobile app, where you can add new ones and remove old ones.",
    ),
    (
        "pay_bill_topup",
        {"bill_amount": "$64.90", "due_date": "2026-12-11", "name": "Claire"},
        [],
        "Hi, can I pay my bill here?",
        "Hi Claire! Your amount due is $64.90, due by 2026-12-11. You can pay it in the Example Mobile app under Billing > Pay bill with a saved card or PayPal.",
    ),
    (
        "pay_bill_topup",
        {},
        [],
        "top up someone else's number?",
        'You can top up prepaid credit in the Example Mobile app under Billing > Top up. If you need help topping up a different line, reply "human agent" and a colleague will help.',
    ),
    (
        "pay_bill_topup",
        {},
        [
            "my line was cut off",
            "Sorry about that. Your line can be reconnected once the overdue amount is paid, in the Example Mobile app under Billing > Pay bill.",
        ],
        "paid. now what",
        'Thanks for paying. Please restart your phone so it reconnects to the network; if the line still doesn\'t work after that, reply "human agent" and a colleague will check it.',
    ),
    (
        "pay_bill_topup",
        {"balance": "$9.20"},
        [],
        "how much credit do i have and where do i top up",
        "Your current balance is $9.20. You can top up in the Example Mobile app under Billing > Top up, choosing the amount and paying with a saved card or PayPal.",
    ),
    (
        "pay_bill_topup",
        {},
        [],
        "Can I pay cash somewhere?",
        'In the Example Mobile app you can pay under Billing > Pay bill with a saved card or PayPal. For other ways to pay, reply "human agent" and a colleague will help.',
    ),
    (
        "plan_change",
        {"plan": "Essential 10GB"},
        [
            "I want a bigger plan",
            "You're currently on Essential 10GB. You can see the other plans available to you under My plan > Change plan in the Example Mobile app.",
        ],
        "which one would you recommend?",
        "I can't recommend a specific plan here, but the plans and their prices are all listed under My plan > Change plan so you can compare them. If you'd like personal advice, reply \"human agent\" and a colleague will help you choose.",
    ),
    (
        "plan_change",
        {},
        [],
        "do you have plans without a contract",
        'The plans available to you are listed in the Example Mobile app under My plan > Change plan, with their prices. For questions about contracts, reply "human agent" and a colleague will help.',
    ),
    (
        "plan_change",
        {"plan": "Go 2GB", "name": "Tariq"},
        [],
        "2gb is never enough for me lol",
        "Sounds like it's time for more data, Tariq! You're on the Go 2GB plan, and you can compare bigger plans and their prices under My plan > Change plan in the Example Mobile app, or add a data pack under My plan > Add-ons.",
    ),
    (
        "plan_change",
        {},
        [],
        "I'd like to remove an extra line from my account",
        'Removing a line ends that service and needs an identity check, so please reply "human agent" and a colleague will go through it with you.',
    ),
    (
        "plan_change",
        {},
        [],
        "is there a family discount if I add lines?",
        "I can't quote discounts here, but when you add a line under My plan in the Example Mobile app, the price is shown for you to confirm before anything changes. A human agent can help with any questions.",
    ),
    (
        "network_fault",
        {},
        [],
        "wifi calling not working",
        'Sorry about that. Please restart your phone and check that Airplane mode is off; if Wi-Fi calling still doesn\'t work, reply "human agent" and a colleague will check your line.',
    ),
    (
        "network_fault",
        {},
        [],
        "phone just says 'emergency calls only'",
        'Sorry about that. Please restart your phone, and if the message stays, take the SIM out and put it back in. If it still shows emergency calls only, reply "human agent" so a colleague can check your line.',
    ),
    (
        "network_fault",
        {"data_left": "7.2 GB"},
        [
            "mobile data not working",
            "Sorry about that. You have 7.2 GB of data left, so please check that Airplane mode is off and Mobile data is on, then restart your phone.",
        ],
        "yep did that",
        "Thanks. Next, please take the SIM card out and put it back in, then restart your phone once more.",
    ),
    (
        "network_fault",
        {},
        [],
        "data works at home but not at work, weird",
        "That is odd, sorry. Service status in the app shows any mast works or outage by postcode, so please check it for your work postcode; if nothing's listed and it still doesn't work there, reply \"human agent\" and a colleague will check your line.",
    ),
    (
        "network_fault",
        {},
        [],
        "my texts won't send",
        'Sorry about that. Please check that Airplane mode is off and restart your phone. If texts still don\'t send, reply "human agent" and a colleague will check your line.',
    ),
    (
        "network_fault",
        {},
        [],
        "is it my phone or your network? nothing works",
        'I can\'t check the network from here, but a few steps will help narrow it down: make sure Airplane mode is off and Mobile data is on, then restart your phone. If nothing changes, reply "human agent" and a colleague will check your line.',
    ),
    (
        "roaming_international",
        {},
        [],
        "Flying to Dubai tonight, is roaming on already?",
        "I can't see that in this chat, but you can check and switch it on in the Example Mobile app under My plan > Roaming; it's free to switch on. When you land, turn on Data roaming in your phone's settings.",
    ),
    (
        "roaming_international",
        {},
        [],
        "do i need a new sim for abroad",
        "You can use your own SIM abroad once roaming is switched on under My plan > Roaming in the Example Mobile app, and Data roaming is on in your phone's settings. The rates for each country are on the same page.",
    ),
    (
        "roaming_international",
        {},
        [
            "I'm in Italy and data isn't working",
            "Sorry about that. Please check that Data roaming is switched on in your phone's settings, then restart your phone.",
        ],
        "where's that setting?",
        "It's in your phone's settings, usually under mobile or cellular network, where you'll find a Data roaming switch. Once it's on, restart your phone; if data still doesn't work, reply \"human agent\".",
    ),
    (
        "roaming_international",
        {},
        [],
        "Calling my mum in India every week, what's cheapest?",
        "Rates for calling abroad are shown per country on the Roaming page of the Example Mobile app, so you'll find the current rate for India there. If you'd like advice on your options, reply \"human agent\".",
    ),
    (
        "roaming_international",
        {"name": "Sofia"},
        [],
        "vacation to greece next week!! anything to do?",
        "How exciting, Sofia! Switch on roaming in the Example Mobile app under My plan > Roaming before you go (it's free to switch on), and turn on Data roaming in your phone's settings when you arrive.",
    ),
    (
        "order_tracking",
        {"order_id": "EM-45530", "order_status": "Processing"},
        [],
        "has my sim shipped",
        "Not yet: your order EM-45530 is currently processing. You can follow it in the Example Mobile app under Shop > My orders.",
    ),
    (
        "order_tracking",
        {"delivery_eta": "2026-12-04", "order_id": "EM-67712", "order_status": "In transit"},
        [],
        "when's my charger arriving?",
        "Your order EM-67712 is in transit, with an estimated delivery of 2026-12-04. You can follow it under Shop > My orders in the Example Mobile app.",
    ),
    (
        "order_tracking",
        {},
        [
            "where is my order",
            "You can follow your order in the Example Mobile app under Shop > My orders, or with the tracking link in your order confirmation email.",
        ],
        "i can't find the email",
        "No problem: the same status and tracking details are in the Example Mobile app under Shop > My orders, so you don't need the email.",
    ),
    (
        "order_tracking",
        {"order_id": "EM-77001", "order_status": "Shipped", "tracking_number": "1Z552910X44"},
        [],
        "tracking for EM-77001?",
        "Your order EM-77001 has shipped, and its tracking number is 1Z552910X44. You can follow it under Shop > My orders in the Example Mobile app.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "my sim card never came in the post",
        "I'm sorry it hasn't arrived. Please check the latest update under Shop > My orders in the Example Mobile app; if it shows as delivered, ask neighbours or your building's reception, and if it's still missing, reply \"human agent\".",
    ),
    (
        "delivery_problem",
        {},
        [
            "my order is late",
            "I'm sorry. You can check the latest update under Shop > My orders in the Example Mobile app.",
        ],
        "it hasn't updated in days",
        'I\'m sorry about that. Please reply "human agent" and a colleague will look into your order.',
    ),
    (
        "delivery_problem",
        {"order_id": "EM-60334", "order_status": "Delivered"},
        [],
        "box came empty?!",
        "I'm so sorry about that. Please keep the box and packaging, take photos, and report it under Shop > My orders > Report a problem for order EM-60334; a colleague will review it with you.",
    ),
    (
        "order_cancel",
        {"order_id": "EM-71190", "order_status": "Pending"},
        ["I want to cancel", "Sure, which order is it?"],
        "EM-71190",
        "Thanks! Order EM-71190 is still pending, so you can cancel it under Shop > My orders > Cancel order in the Example Mobile app. The payment goes back to your original payment method.",
    ),
    (
        "order_cancel",
        {"order_id": "EM-56002", "order_status": "Delivered"},
        [],
        "how do I cancel my order? I don't want it",
        "Your order EM-56002 has already been delivered, so it can't be cancelled, but you can return it under Shop > My orders > Return or exchange in the Example Mobile app.",
    ),
    (
        "order_cancel",
        {},
        [],
        "will I be charged to cancel?",
        "A pending order can be cancelled under Shop > My orders > Cancel order in the Example Mobile app, and the payment goes back to your original payment method. If you have any other questions about it, a human agent can help.",
    ),
    (
        "order_modify",
        {"order_id": "EM-52119", "order_status": "Pending"},
        [],
        "can I change to blue AND change the address",
        "Yes, your order EM-52119 is still pending, so you can make both changes under Shop > My orders > Change order in the Example Mobile app. Item changes can only be made once, so please do the colour and address together.",
    ),
    (
        "order_modify",
        {},
        [],
        "I want to add a case to my phone order",
        "An order can be changed only for its address, payment method or the model's colour or storage option, so to get a case as well, you can place a separate order in the Shop section of the app.",
    ),
    (
        "order_modify",
        {},
        [
            "can i change my order",
            "While an order is still pending, you can change it under Shop > My orders > Change order in the Example Mobile app.",
        ],
        "already changed the colour once, can I change again?",
        "I'm sorry, item changes can only be made once per order. Once it's delivered, you can request an exchange under Shop > My orders > Return or exchange.",
    ),
    (
        "return_exchange",
        {},
        [],
        "how do I send the phone back?",
        "Start the return under Shop > My orders > Return or exchange in the Example Mobile app; if the item is eligible, you'll get an email explaining how to send it back.",
    ),
    (
        "return_exchange",
        {"order_id": "EM-43398", "order_status": "Delivered"},
        [],
        "can i swap the 128 for the 256 now that it's arrived",
        "Yes, your order EM-43398 has been delivered, so you can request an exchange for another storage option of the same model under Shop > My orders > Return or exchange, where you'll see whether it's eligible.",
    ),
    (
        "return_exchange",
        {},
        [],
        "I returned a case last week, where's my money?",
        'Refunds go to your original payment method, and you can follow the status under Shop > My orders in the Example Mobile app. If anything looks wrong, reply "human agent".',
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "is there a student discount?",
        "I can't quote discounts in this chat, but any offers and their conditions are shown in the offer details in the app. If you have a code, enter it at checkout before you pay, and a human agent can help with other questions.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [
            "my promo code won't work",
            "Sorry about that! Please check the code's expiry date and conditions, and enter it exactly as shown at checkout.",
        ],
        "it's for the phone I'm buying, not expired",
        'Thanks for checking. Please make sure that phone is one of the eligible products in the offer details and that your order meets any minimum spend; if it still won\'t apply, reply "human agent".',
    ),
    (
        "product_presales_inquiry",
        {},
        [],
        "can I buy a phone on monthly payments",
        'The payment options are shown at checkout in the Shop section of the Example Mobile app or website. If you\'d like a colleague to explain them, reply "human agent".',
    ),
    (
        "product_presales_inquiry",
        {"item": "iPhone 16 256GB"},
        [],
        "how much is it",
        "The current price of the iPhone 16 256GB is shown on its page in the Shop section of the Example Mobile app or website, along with stock and delivery options.",
    ),
    (
        "product_presales_inquiry",
        {},
        [],
        "do your phones come unlocked",
        "Each phone's page in the Shop section of the Example Mobile app or website shows its full details. If you can't find what you need there, reply \"human agent\" and a colleague will help.",
    ),
    (
        "account_manage",
        {},
        [],
        "how do I update my contact number, it's changed",
        "You can update your contact number in the Example Mobile app under Profile > Personal details, and the change applies as soon as you save it.",
    ),
    (
        "account_manage",
        {},
        [],
        "my ex still has access to my account, how do I change things",
        'I\'m sorry to hear that. You can update your email and contact details under Profile > Personal details in the Example Mobile app, and for anything that needs an identity check, reply "human agent" and a colleague will help.',
    ),
    (
        "app_website_issue",
        {},
        [],
        "can't download my invoice, the button does nothing",
        "Sorry about that. Please update the Example Mobile app and close and reopen it; on the website, try clearing your browser's cache or another browser. If it still won't download, reply \"human agent\".",
    ),
    (
        "app_website_issue",
        {"name": "Hugo"},
        [],
        "app stuck on 'something went wrong'",
        "Sorry about that, Hugo. Please close and reopen the app, and if the message stays, sign out and back in. Switching between Wi-Fi and mobile data can also help rule out a connection problem.",
    ),
    (
        "greeting_chitchat",
        {},
        [],
        "you're a lifesaver, thank you",
        "That's so kind, thank you! Happy to help any time.",
    ),
    (
        "greeting_chitchat",
        {},
        [],
        "yo",
        "Hi there! Thanks for contacting Example Mobile. What can I help you with?",
    ),
    (
        "greeting_chitchat",
        {"name": "Ruth"},
        [],
        "Hello dear, I'm not very good with technology",
        "Hello Ruth, don't worry at all, I'm happy to help. I'm the Example Mobile virtual assistant, and I can help with your bill, balance, plan, signal problems and more. What would you like to do?",
    ),
]

HAND += [
    (
        "balance_usage_inquiry",
        {"data_left": "3 GB", "balance": "$5.00"},
        ["hey", "Hi there! How can I help you today?"],
        "whats left on my account, data and money",
        "You have 3 GB of data left this month, and your balance is $5.00. You can check both any time with *100# or under My usage in the Example Mobile app.",
    ),
    (
        "billing_inquiry",
        {},
        ["where's my bill", "You can see every charge in the Example Mobile app under Billing > Bills."],
        "and the invoice pdf?",
        "It's on the same page: open the bill under Billing > Bills and download the PDF copy from there.",
    ),
    (
        "payment_issue",
        {},
        [],
        "autopay failed, says card expired",
        "Sorry about that. Please add your new card or PayPal under Billing > Payment methods in the Example Mobile app, then pay the bill under Billing > Pay bill. Please don't type card details in this chat.",
    ),
    (
        "plan_change",
        {},
        [
            "I want to change plan",
            "Of course. You can see the plans available to you under My plan > Change plan in the Example Mobile app.",
        ],
        "will I keep my number?",
        "Yes, changing plan doesn't change your number. The new price and start date are shown for you to confirm before anything changes.",
    ),
    (
        "network_fault",
        {},
        ["no signal", "Sorry about that. Please check that Airplane mode is off, then restart your phone."],
        "still nothing",
        'Sorry it\'s still not working. Please take the SIM out and put it back in; if you still have no signal, Service status in the app shows any mast works or outage by postcode, or reply "human agent" and a colleague will check your line.',
    ),
    (
        "roaming_international",
        {},
        [
            "going to japan",
            "To use your phone in Japan, switch on roaming in the Example Mobile app under My plan > Roaming, and turn on Data roaming in your phone's settings when you arrive.",
        ],
        "and the prices?",
        "The rates for calls, texts and data in Japan are shown on the same Roaming page in the app.",
    ),
    (
        "order_tracking",
        {},
        [],
        "where do I find my order number",
        "You'll find your order number in the Example Mobile app under Shop > My orders, and in your order confirmation email.",
    ),
    (
        "delivery_problem",
        {},
        [],
        "the case I got doesn't fit my phone model",
        "Sorry about that. Please keep the packaging, take a photo, and report it under Shop > My orders > Report a problem in the Example Mobile app; a colleague will review it with you.",
    ),
    (
        "order_cancel",
        {"order_id": "EM-74412", "order_status": "Pending", "name": "Rhys"},
        [],
        "cancel the order I just made",
        "Sure, Rhys. Your order EM-74412 is still pending, so you can cancel it under Shop > My orders > Cancel order in the Example Mobile app, and the payment goes back to your original payment method.",
    ),
    (
        "order_modify",
        {"order_id": "EM-61877", "order_status": "Shipped"},
        [],
        "can I switch the storage size",
        "I'm sorry, your order EM-61877 has already shipped, so it can't be changed. Once it arrives, you can request an exchange under Shop > My orders > Return or exchange.",
    ),
    (
        "return_exchange",
        {},
        [
            "i want to return my phone",
            "Once your order has been delivered, you can start a return under Shop > My orders > Return or exchange in the Example Mobile app.",
        ],
        "how long do I have?",
        "The return window is shown on the Return or exchange page when you start the return, along with whether the item is eligible.",
    ),
    (
        "promo_coupon_pricing",
        {},
        [],
        "the voucher disappeared from my cart",
        "Sorry about that. Please check the voucher's expiry date and conditions in the offer details, and enter it again at checkout before you pay; if it still won't apply, reply \"human agent\".",
    ),
    (
        "product_presales_inquiry",
        {},
        [],
        "which phone is best for an elderly person",
        'You can compare the phones, their specs and prices in the Shop section of the Example Mobile app or website. If you\'d like help choosing, reply "human agent" and a colleague will be happy to advise.',
    ),
    (
        "account_manage",
        {},
        [],
        "stop sending me promo texts pls",
        "You can switch off marketing messages under Profile > Personal details in the Example Mobile app, and the change applies as soon as you save it.",
    ),
    (
        "app_website_issue",
        {},
        [
            "app won't open",
            "Sorry about that. Please update the Example Mobile app to the latest version, then close and reopen it.",
        ],
        "updated, still won't",
        "Thanks for trying that. Please sign out and back in, and switch between Wi-Fi and mobile data; if it still won't open, reply \"human agent\" and we'll look into it.",
    ),
    ("greeting_chitchat", {}, [], "good night", "Good night, and thanks for contacting Example Mobile!"),
    (
        "greeting_chitchat",
        {},
        [],
        "you've been great, cheers mate",
        "Cheers, that's kind of you! Happy to help any time.",
    ),
]
INTENT_POOLS["app_website_issue"]["subs"][0]["cores"] = [
    "Please make sure the Example Mobile app is updated to the latest version, then close and reopen it; on the website, clearing your browser's cache and cookies or trying another browser usually helps.",
    "First, update the app to the latest version and close and reopen it; if that doesn't help, sign out and back in. If you're on the website, try clearing the browser cache or using another browser.",
    "Try closing and reopening the app, then signing out and back in, and switch between Wi-Fi and mobile data to rule out a connection problem. On the website, another browser or a cleared cache often fixes it.",
    "A quick update of the Example Mobile app, followed by closing and reopening it, fixes most errors. For the website, please clear your browser's cache and cookies or try a different browser.",
]
INTENT_POOLS["product_presales_inquiry"]["cf"][0]["tails"] = [
    "Delivery options for your address appear at checkout.",
    "The delivery options and costs for your address are shown at checkout.",
]
