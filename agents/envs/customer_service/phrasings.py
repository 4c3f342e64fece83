"""The ticket generator's phrasing tables (agents/envs/customer_service/tickets.py writes tickets from them).

Template families: "direct" (the words a keyword list expects), "indirect" (the need is implied, not
named), "casual" (chat style). "formal_letter" and "terse" are held out of train, validation and test:
they make up the holdout-styles split. `{slot}` markers are filled from `SLOTS`.
"""

from __future__ import annotations

SLOTS: dict[str, list[str]] = {
    "product": [
        "wireless earbuds",
        "running shoes",
        "phone case",
        "coffee maker",
        "yoga mat",
        "winter jacket",
        "backpack",
        "desk lamp",
        "bluetooth speaker",
        "smart watch",
        "blender",
        "air fryer",
        "kids bike",
        "office chair",
        "water bottle",
        "hair dryer",
        "gaming mouse",
        "rice cooker",
        "sunglasses",
        "electric toothbrush",
        "duvet cover",
        "kettle",
        "laptop stand",
        "hiking boots",
        "baby monitor",
    ],
    "device": ["my iPhone 12", "a Samsung Galaxy", "my MacBook", "Windows 11", "my old Android", "a PS5"],
    "color": ["black", "navy blue", "rose gold", "white", "forest green", "grey"],
    "size": ["M", "XL", "42", "10.5", "small", "38"],
    "category": [
        "laptop bag",
        "pair of headphones",
        "blender",
        "sleeping bag",
        "desk chair",
        "running watch",
        "espresso machine",
        "rain jacket",
        "kids toy",
        "vacuum cleaner",
    ],
    "price": ["50", "100", "80", "200", "30", "150"],
    "person": ["mom", "dad", "sister", "boyfriend", "coworker", "grandma", "nephew"],
    "activity": ["camping", "working from home", "a long flight", "marathon training", "a new baby"],
    "dur": [
        "two weeks",
        "10 days",
        "almost a month",
        "three weeks",
        "a week and a half",
        "5 days",
        "over 2 weeks",
        "nearly 3 weeks",
    ],
    "day": ["monday", "last tuesday", "the 3rd", "friday", "the weekend", "the 14th"],
    "place": [
        "12 Elm Street",
        "my office on Baker Road",
        "45 Harbour View, apt 3",
        "my parents' house",
        "the new flat on King St",
        "221 Maple Ave",
        "my work address",
    ],
    "name": ["Sam", "Priya", "J. Chen", "Maria", "Tom", "Aisha"],
}

INTENT_TEMPLATES: dict[str, dict[str, list[str]]] = {
    "product_question": {
        "direct": [
            "Does the {product} come in {color}?",
            "What's the battery life on the {product}?",
            "Is the {product} waterproof?",
            "Can you tell me the dimensions of the {product}?",
            "Is the {product} compatible with {device}?",
            "What material is the {product} made of?",
            "Is the {product} in stock in size {size}?",
            "Does the {product} have a warranty?",
        ],
        "indirect": [
            "I'm trying to figure out if the {product} would fit in a small apartment.",
            "Before I buy the {product} I need to know whether it works with {device}.",
            "Would the {product} survive being used in the rain?",
            "How long does the {product} last on one charge, roughly?",
            "Curious what the {product} is made of, my kid has allergies.",
            "The listing for the {product} doesn't say how heavy it is.",
            "Will the {product} run on European plugs or do I need an adapter?",
            "How loud is the {product} when it's on full power?",
            "Not sure the {product} will handle daily use, how sturdy is it?",
        ],
        "casual": [
            "yo does the {product} work w/ {device}??",
            "{product}: real leather or fake?",
            "quick q, is the {product} dishwasher safe",
            "does the {product} come in {color} or nah",
            "hw big is the {product} exactly",
        ],
        "formal_letter": [
            "I would be grateful if you could clarify the technical specifications of the {product}.",
            "Kindly confirm whether the {product} is suitable for use with {device}.",
        ],
        "terse": ["{product} specs?", "{product} + {device} ok?"],
    },
    "recommendation": {
        "direct": [
            "Can you recommend a good {category} under ${price}?",
            "Which {category} would you suggest for a beginner?",
            "What's the best {category} you sell?",
            "Any recommendations for a gift for my {person}?",
            "Could you suggest a {category} for {activity}?",
        ],
        "indirect": [
            "My {person}'s birthday is next week and I have no idea what to get them, budget around ${price}.",
            "I need something to keep my coffee hot on long drives, what should I look at?",
            "Torn between the {product} and a cheaper {category}, which one would you go for?",
            "Looking for something similar to the {product} but cheaper.",
            "What do most people buy for {activity}?",
            "I'm setting up for {activity} and honestly don't know where to start.",
            "If you were me, what would you pick for {activity} with about ${price}?",
            "Which would you rather have, the {product} or something else in that price range?",
        ],
        "casual": [
            "need a {category} that doesnt suck, ideas?",
            "whats good for {activity} under {price} bucks",
            "gift ideas for my {person}?? shes picky lol",
            "what should i get for {activity}",
        ],
        "formal_letter": [
            "I would appreciate your advice on selecting an appropriate {category} for {activity}.",
            "Please advise which of your {category} models you would consider most suitable for my {person}.",
        ],
        "terse": ["best {category} <${price}?", "gift for {person}, ideas"],
    },
    "order_tracking": {
        "direct": [
            "Where is my order {order}?",
            "Can you give me the tracking number for order {order}?",
            "What's the status of my order {order}?",
            "Has my {product} shipped yet?",
            "When will my order {order} arrive?",
            "Can you track my package for me?",
        ],
        "indirect": [
            "I ordered the {product} on {day} and just want to know where it is right now.",
            "Is my package with the courier yet or still at your warehouse?",
            "Any way to see which van my parcel is on?",
            "The app only says 'processing' for {order}, what does that mean for where it is?",
            "I'll be out on {day}, will someone need to be home when the {product} gets here?",
            "Just tell me where it is.",
            "Which courier has my {product} and when should I expect them?",
            "It's not late yet, I'd just like to know where it is.",
            "Is it out for delivery today?",
        ],
        "casual": [
            "wheres my stuff? order {order}",
            "did my {product} ship or nah",
            "any eta on {order}?",
            "hey where my package at",
        ],
        "formal_letter": [
            "I should be obliged if you would inform me of the present whereabouts of consignment {order}.",
            "Please provide the current shipping status of my purchase ({order}).",
        ],
        "terse": ["{order} status?", "eta {order}"],
    },
    "delivery_delay": {
        "direct": [
            "My order {order} is late.",
            "The delivery of my {product} is delayed, it was supposed to arrive {day}.",
            "Why is my package taking so long? It's {dur} overdue.",
            "My delivery is late again.",
            "The shipment for {order} is delayed.",
        ],
        "indirect": [
            "It's been {dur} and still nothing.",
            "The estimated date came and went and my {product} never showed up.",
            "I was promised it by {day}, that was {dur} ago.",
            "I've been checking my mailbox every day for {dur} now.",
            "The tracking hasn't moved in {dur}.",
            "I ordered the {product} for a trip that already happened and it still isn't here.",
            "You said 3-5 business days. It has been {dur}.",
            "My {person} was supposed to have this for their birthday and the day has passed, still no parcel.",
            "Every day I'm told tomorrow, and tomorrow never comes.",
            "No sign of the {product} yet and the expected date was {day}.",
        ],
        "casual": [
            "ugh {dur} and STILL waiting on my {product}",
            "this is taking foreverrr",
            "{dur}?? seriously where is the delivery, it was due {day}",
            "still no {product} after {dur} smh",
        ],
        "formal_letter": [
            "I note with concern that the {product}, promised for {day}, has not yet been delivered.",
            "The dispatch of order {order} appears to have been postponed well beyond the agreed date.",
        ],
        "terse": ["{order} late. {dur}.", "no parcel, {dur} now"],
    },
    "address_change": {
        "direct": [
            "I need to change the shipping address for order {order}.",
            "Can I update my delivery address to {place}?",
            "Please ship order {order} to {place} instead.",
            "I want to change my address on the order.",
        ],
        "indirect": [
            "I just moved, so the {product} needs to go to {place} now.",
            "I won't be at the old place anymore, can the parcel be redirected to {place}?",
            "I typed the wrong street number when I checked out.",
            "Can it go to my office at {place} rather than my home?",
            "We're relocating on {day}, please make sure it ends up at {place}.",
            "My building number on the order is wrong, it should be {place}.",
            "Nobody will be home at the old place after {day}, {place} works better.",
        ],
        "casual": [
            "moved last wk, send it to {place} pls",
            "wrong addy on {order} oops",
            "can u send it to {place} instead",
        ],
        "formal_letter": [
            "Kindly amend the destination of order {order} to {place}, as I have recently relocated.",
            "I must request that consignment {order} be redirected to {place}.",
        ],
        "terse": ["new addr: {place}", "{order} -> {place}"],
    },
    "return_refund": {
        "direct": [
            "I want to return the {product} and get a refund.",
            "How do I get my money back for order {order}?",
            "Please refund my order {order}.",
            "I'd like to send back the {product}.",
            "Can I return the {product}?",
        ],
        "indirect": [
            "The {product} doesn't fit, I'd like to send it back.",
            "Changed my mind about the {product}, can I undo the purchase?",
            "I was charged twice for {order}, I need one of those payments reversed.",
            "The {product} isn't what I expected, I don't want to keep it.",
            "Can I still get the money back if I've opened the box?",
            "I'd rather have the cash back on my card than keep the {product}.",
            "What's the process to cancel and be reimbursed for {order}?",
            "Honestly I'd just like this to go away and have the charge reversed.",
            "Keep the {product}, I want what I paid.",
        ],
        "casual": [
            "dont want the {product} anymore, $ back?",
            "how do i send this thing back",
            "refnd pls, {product} not for me",
            "can i get my $$ back for {order}",
        ],
        "formal_letter": [
            "I wish to exercise my statutory right to cancel order {order} and request reimbursement.",
            "Please arrange the collection of the {product} and credit the amount to my account.",
        ],
        "terse": ["{order} money back", "return {product}. how?"],
    },
    "damaged_item": {
        "direct": [
            "My {product} arrived damaged.",
            "The {product} came broken.",
            "The box was crushed and the {product} inside is cracked.",
            "I received a damaged {product}.",
        ],
        "indirect": [
            "Opened the package and the {product} was in pieces.",
            "The screen on the {product} has a big crack right out of the box.",
            "There's a dent on the side of the {product} and it won't turn on.",
            "Half the parts are snapped off.",
            "It was leaking all over the box when it got here.",
            "The {product} has scratches all over it and one leg is bent.",
            "When I unwrapped the {product} the glass was shattered.",
            "The {product} doesn't work at all out of the box.",
            "The return address label was on it but the {product} itself was torn open and ripped.",
        ],
        "casual": [
            "{product} showed up smashed lol great",
            "thing is busted on arrival",
            "my {product} came all banged up",
        ],
        "formal_letter": [
            "Upon inspection, the {product} was found to be defective and visibly impaired in transit.",
            "I regret to report that the {product} reached me in an unusable condition.",
        ],
        "terse": ["{product} cracked on arrival", "item smashed"],
    },
    "complaint": {
        "direct": [
            "I want to file a complaint about your customer service.",
            "This is the worst service I've ever had.",
            "I'm very unhappy with how I was treated by your agent.",
            "I want to make a formal complaint.",
        ],
        "indirect": [
            "Your driver threw the package over my fence and was rude when I asked him about it.",
            "I've been transferred four times and nobody has helped me.",
            "I expect better from a company this size, please pass this on to a manager.",
            "Your support chat closed on me three times.",
            "Honestly I'm thinking of never ordering from you again.",
            "Nobody answered my last three emails.",
            "The person on the phone hung up on me.",
            "I would not recommend you to anyone after this.",
            "Your track record with me is terrible.",
            "I keep getting passed around and my case is going nowhere.",
        ],
        "casual": [
            "ur support is a joke",
            "seriously done with this store",
            "worst experiance ever with u guys",
        ],
        "formal_letter": [
            "I wish to register my profound dissatisfaction with the conduct of your staff.",
            "I request that this matter be escalated to a senior manager for review.",
        ],
        "terse": ["bad service. escalate.", "staff rude. not ok."],
    },
}

TRAIN_FAMILIES: tuple[str, ...] = ("direct", "indirect", "casual")
HOLDOUT_FAMILIES: tuple[str, ...] = ("formal_letter", "terse")
FAMILY_WEIGHTS: dict[str, float] = {"direct": 0.3, "indirect": 0.45, "casual": 0.25}
EVAL_ONLY_EVERY = 4

# Clauses that mention another intent's words without asking for it, keyed by the intent they negate.
# They must never be attached to a ticket that carries that intent.
DISTRACTORS: dict[str, list[str]] = {
    "return_refund": [
        "No need to refund anything.",
        "I don't want a refund or a return,",
        "not looking for my money back,",
        "I'm keeping it, no return needed.",
        "A refund is the last thing I want,",
        "refund? nah,",
        "forget about returning it,",
    ],
    "complaint": [
        "Not trying to complain here,",
        "This isn't a complaint, your service has been great.",
        "no complaints about the staff btw,",
        "Complaining won't fix anything so I won't,",
        "your staff have been lovely so far,",
    ],
    "damaged_item": [
        "Nothing's broken,",
        "The last parcel arrived in perfect condition, nothing damaged.",
        "It's not damaged or anything,",
        "damage-wise it's all fine,",
    ],
    "delivery_delay": [
        "Delivery was actually fast last time.",
        "It's not late yet,",
        "no delay on your side I think,",
        "the delay isn't the problem,",
        "it came on time,",
    ],
    "address_change": [
        "The address on the order is correct,",
        "I don't need to change my address,",
        "same address as always,",
    ],
    "recommendation": ["I'm not asking for a recommendation,", "I already know what I want,"],
    "order_tracking": ["I already have the tracking number,", "I know where the package is,"],
    "product_question": ["I know the specs already,"],
}

NEUTRAL_CONTEXT: list[str] = [
    "I've been a customer for years.",
    "My sister recommended your shop.",
    "I gave my last order 5 stars, best purchase this year.",
    "I read your return policy before buying.",
    "I've tracked plenty of parcels with you before.",
    "I work late shifts so afternoons are best for me.",
    "My address hasn't changed in years.",
    "I'm a loyal customer, never had to complain before.",
    "Your delivery guy last month was lovely.",
    "I bought this for my {person}.",
    "Sorry for the long message.",
    "I ordered on my phone.",
    "My name is {name}.",
    "This was a gift.",
]

OPENERS: list[str] = [
    "Hi,",
    "Hello there.",
    "hey",
    "Good morning,",
    "Hi team,",
    "hello",
    "Hi there!",
    "Hey guys,",
]
CLOSERS: list[str] = [
    "Thanks.",
    "thx",
    "Appreciate it!",
    "Please help.",
    "Regards, {name}",
    "ty",
    "Thanks in advance.",
]
CONNECTORS: list[str] = [
    ". Also, ",
    " and ",
    ". Oh and ",
    " btw ",
    ". Another thing: ",
    ". Plus ",
    ". ",
    ", also ",
]
HOLDOUT_OPENERS: list[str] = ["Dear Sir or Madam,", "To whom it may concern:", "RE: my account -"]
HOLDOUT_CLOSERS: list[str] = ["Yours faithfully, {name}", "Kind regards.", "-- sent from mobile"]
HOLDOUT_CONNECTORS: list[str] = [". Furthermore, ", ". Additionally, ", " | ", "; moreover "]

# Pairs that occur together in real inboxes; multi-intent tickets draw from these more often.
COMMON_PAIRS: list[tuple[str, str]] = [
    ("damaged_item", "return_refund"),
    ("delivery_delay", "complaint"),
    ("delivery_delay", "order_tracking"),
    ("order_tracking", "address_change"),
    ("product_question", "recommendation"),
    ("damaged_item", "complaint"),
    ("delivery_delay", "return_refund"),
]

CASUAL_SUBSTITUTIONS: dict[str, str] = {
    "you": "u",
    "your": "ur",
    "please": "pls",
    "thanks": "thx",
    "because": "cuz",
    "are": "r",
    "with": "w/",
}
KEYBOARD_NEIGHBOURS = {
    "a": "sq",
    "e": "wr",
    "i": "uo",
    "o": "ip",
    "u": "yi",
    "r": "et",
    "t": "ry",
    "n": "bm",
    "s": "ad",
    "l": "k",
    "d": "sf",
    "c": "xv",
    "m": "n",
    "h": "gj",
    "g": "fh",
    "y": "tu",
    "p": "o",
    "k": "jl",
}
