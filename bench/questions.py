"""The customer questions the benchmarks send (one list, so every benchmark measures the same prompts)."""

QUESTIONS = [
    "How can I check how much mobile data I have left?",
    "My parcel is late, where is it?",
    "Can I switch to a plan with more minutes?",
    "How do I return shoes that do not fit?",
    "Why is my bill higher than usual this month?",
    "My internet keeps dropping every evening.",
    "How do I activate roaming before my trip to Spain?",
    "I lost my SIM card, what should I do?",
    "Can I change the delivery address of my order?",
    "When will I get my refund?",
    "My coupon code does not work at checkout.",
    "Is this laptop in stock in silver?",
    "I want to cancel my order placed an hour ago.",
    "How do I top up my prepaid phone?",
    "The app crashes when I open my account page.",
    "I was charged twice for the same order.",
]
