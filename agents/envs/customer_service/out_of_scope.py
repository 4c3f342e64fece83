"""Generated out-of-scope tickets: requests a shop's inbox gets that none of the eight intents covers.

A data source for the scope gate's "none" side (`serving.scope`, docs/decisions/0020-out-of-scope-gate.md):
billing mistakes, invoices, exchanges, accounts, discount codes, gift cards, loyalty points, privacy and
newsletters, the website itself, shop information, jobs and business enquiries, thanks and chit-chat, and
requests from another world entirely. Every row has ``"intents": []``.

The clauses are worded here, in five families (direct, indirect, casual, formal, terse), and dressed with
the in-scope generator's own openers, closers, neutral context, casual spelling and typos
(`tickets._add_noise`), so what separates them from in-scope tickets is what they ask, not how the
generator writes. Every fourth clause of a family is kept for the ``dev`` split, as the in-scope generator
keeps phrasings out of train. The hand-written ``out_of_scope_{dev,test}.jsonl`` and
``out_of_scope_voices.jsonl`` are other authors' and never feed this.

    python -m agents.envs.customer_service.out_of_scope --out data/customer_service [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Sequence
from pathlib import Path

from agents.envs.customer_service.phrasings import CLOSERS, NEUTRAL_CONTEXT, OPENERS, SLOTS
from agents.envs.customer_service.tickets import _add_noise

__all__ = ["KINDS", "generate_out_of_scope", "main"]

FAMILIES = ("direct", "indirect", "casual", "formal", "terse")
DEV_EVERY = 4
OWN_SLOTS: dict[str, list[str]] = {
    "amount": ["£24.99", "$58", "€112.40", "39.50", "$19", "£7.20"],
    "code": ["SPRING20", "WELCOME10", "FREESHIP", "VIP15", "BDAY5"],
    "email": ["sam.k@example.com", "my work email", "my old hotmail address", "a new gmail"],
    "company": ["a small boutique", "our café chain", "a school", "a local radio station", "our startup"],
    "n": ["2", "3", "4", "two", "three"],
}

# kind -> family -> clauses ({slot}s filled from SLOTS / OWN_SLOTS; {order} is an order number)
KINDS: dict[str, dict[str, list[str]]] = {
    "billing": {
        "direct": [
            "I have been charged twice for order {order}, please remove one payment.",
            "Why is the amount on my bank statement {amount} more than the checkout total?",
            "My card was debited but the order never went through. Where is the money?",
            "Please stop charging my card every month, I never signed up for anything.",
            "The payment failed three times at checkout, is there a problem with your payment system?",
        ],
        "indirect": [
            "Looking at my statement this morning I can see the same payment of {amount} twice.",
            "I only placed one order but my bank shows {n} transactions from your company.",
            "The total I paid doesn't match the price that was shown in the basket.",
            "My card keeps getting declined on your site even though it works everywhere else.",
            "There's a pending charge from you that I don't recognise at all.",
        ],
        "casual": [
            "u charged me twice lol pls fix",
            "why did my card get hit 2x for one order",
            "money left my account but no order confirmation??",
            "payment wont go thru, tried 3 cards",
            "charged {amount} extra for no reason, whats that about",
        ],
        "formal": [
            "I wish to dispute a duplicate charge made to my card in respect of order {order}.",
            "Kindly explain the discrepancy between the invoiced amount and the agreed price.",
            "I should be grateful if you would reverse the unauthorised payment taken on {day}.",
            "Please confirm which payment methods you accept for orders placed from abroad.",
        ],
        "terse": [
            "Double charge. Order {order}.",
            "Wrong amount charged.",
            "Payment declined again.",
            "Unknown charge on card.",
            "Do you take PayPal?",
        ],
    },
    "invoice": {
        "direct": [
            "Can you send me a VAT invoice for order {order}?",
            "I need a receipt with my company details for my expense claim.",
            "Please add our tax number to the invoice for the last order.",
        ],
        "indirect": [
            "My accountant is asking for a proper invoice and the confirmation email isn't enough.",
            "The receipt I got doesn't show the VAT, and finance won't accept it without that.",
            "Our company needs the billing address on the invoice changed to head office.",
        ],
        "casual": [
            "can i get an invoice pls, need it for work",
            "where do i download my receipt??",
            "need a vat receipt for {order} asap",
        ],
        "formal": [
            "Please issue a VAT invoice in the name of {company} for order {order}.",
            "We require a duplicate invoice for our records for purchases made in March.",
        ],
        "terse": ["Invoice for {order} please.", "Need VAT receipt.", "Receipt missing tax number."],
    },
    "exchange": {
        "direct": [
            "Can I swap the {product} for a size {size} instead?",
            "I'd like to exchange the {color} one for a different colour.",
            "Is it possible to trade the {product} for the bigger model? I'm keeping it, just want the other size.",
        ],
        "indirect": [
            "The {product} fits fine in length but I really need the size up, and I'd rather swap than send it back for money.",
            "I love the {product} but I ordered the wrong colour, I'd prefer the {color} version in its place.",
            "My {person} already has the same one, so I'd like a different model for the same price.",
        ],
        "casual": [
            "can i swap for a {size}? too tight",
            "wrong colour lol can u switch it to {color}",
            "want to exchange not refund, diff size pls",
        ],
        "formal": [
            "I would like to exchange the item for the same article in size {size}.",
            "Kindly arrange an exchange of the {product} for the model in {color}.",
        ],
        "terse": [
            "Exchange for size {size}.",
            "Swap colour to {color}.",
            "Different size please, no refund.",
        ],
    },
    "account": {
        "direct": [
            "I can't log in to my account, the password reset email never arrives.",
            "How do I change the email address on my account to {email}?",
            "Please delete my account and everything you hold about me.",
            "My account got locked after too many login attempts.",
        ],
        "indirect": [
            "Every time I try to sign in it says my password is wrong, but I'm sure it's right.",
            "I made two accounts by accident and would like them merged into one.",
            "I don't remember which email I registered with, so I can't get in.",
        ],
        "casual": [
            "cant log in, reset link never comes",
            "how do i change my password on the app",
            "locked out of my acct again ugh",
            "pls delete my account",
        ],
        "formal": [
            "I request the closure of my customer account and the erasure of my personal data.",
            "I am unable to access my account and would be grateful for your assistance.",
        ],
        "terse": [
            "Can't log in.",
            "Delete my account.",
            "Password reset not working.",
            "Change account email.",
        ],
    },
    "promotions": {
        "direct": [
            "The discount code {code} says it's invalid, can you help?",
            "Will you price match a cheaper offer I found elsewhere?",
            "I bought the {product} last week and now it's on sale, can I get the difference back?",
            "Do you have any student discount?",
        ],
        "indirect": [
            "I tried to use {code} from your newsletter at checkout but nothing came off the total.",
            "A friend got a welcome discount and I never received mine when I signed up.",
            "Another site sells the same {product} for less and I'd rather buy it from you.",
        ],
        "casual": [
            "{code} not working??",
            "any promo codes going rn",
            "is there a black friday sale this year",
            "got a code but it wont apply",
        ],
        "formal": [
            "I wish to enquire whether your shop offers discounts for bulk or trade purchases.",
            "Please advise why the promotional code {code} was rejected at checkout.",
        ],
        "terse": ["Code {code} invalid.", "Student discount?", "Price match?", "When is the next sale?"],
    },
    "gift_cards_loyalty": {
        "direct": [
            "How do I check the balance on my gift card?",
            "My loyalty points from the last {n} orders never showed up on my account.",
            "Can I use two gift cards on one order?",
            "How do I cancel my premium membership?",
        ],
        "indirect": [
            "I was given a gift voucher for my birthday but the site won't accept the number.",
            "My points balance went down to zero overnight and I haven't spent any.",
            "I'm paying for the membership every month but I never get the free shipping it promised.",
        ],
        "casual": [
            "gift card not working at checkout",
            "where r my points??",
            "how many points do i have",
            "can i buy a gift card for my {person}",
        ],
        "formal": [
            "I would like to know the expiry date of a gift card purchased in December.",
            "Please terminate my membership subscription with effect from the end of this month.",
        ],
        "terse": ["Gift card balance?", "Points missing.", "Cancel membership.", "Gift card rejected."],
    },
    "privacy_marketing": {
        "direct": [
            "Please take me off your mailing list.",
            "I'd like a copy of all the personal data you hold about me.",
            "Stop sending me text messages, I never agreed to them.",
        ],
        "indirect": [
            "I keep getting three marketing emails a day even though I unsubscribed last month.",
            "Someone else's name is on the emails I receive from you, so my address must be mixed up with theirs.",
            "I'm worried my details were part of a data breach, was your site affected?",
        ],
        "casual": ["unsubscribe me pls", "too many emails, make it stop", "how do i turn off the sms spam"],
        "formal": [
            "Under data protection law I request access to the personal data you process about me.",
            "I withdraw my consent to receive marketing communications by any channel.",
        ],
        "terse": ["Unsubscribe.", "Stop emails.", "Send my data.", "Remove me from marketing."],
    },
    "website": {
        "direct": [
            "Your website keeps crashing when I open the basket.",
            "The app won't open on {device} since the last update.",
            "The search on your site doesn't return anything, even for things you sell.",
        ],
        "indirect": [
            "Whenever I click checkout the page goes blank and I have to start over.",
            "Pictures on the product pages haven't loaded for me all week.",
            "I get an error message as soon as I try to save my card details.",
        ],
        "casual": ["ur app keeps crashing", "site is down??", "checkout button does nothing on {device}"],
        "formal": ["I wish to report a fault on your website: the checkout page returns an error."],
        "terse": ["App crashes.", "Website error at checkout.", "Page won't load."],
    },
    "shop_info": {
        "direct": [
            "What are your opening hours on Sundays?",
            "Do you have a physical shop I can visit?",
            "What's your phone number? I'd rather speak to someone.",
            "Are you open on bank holidays?",
        ],
        "indirect": [
            "I'm in town this weekend and wondered if there's a store where I could pop in.",
            "I couldn't find a phone number anywhere on the site and would prefer to call.",
        ],
        "casual": ["r u open sunday", "where's ur nearest store", "whats ur phone number"],
        "formal": ["Could you please provide the postal address of your head office?"],
        "terse": ["Opening hours?", "Store address?", "Phone number?"],
    },
    "business": {
        "direct": [
            "Are you hiring for the warehouse?",
            "I'd like to sell my handmade candles through your shop, who do I talk to?",
            "Do you offer wholesale prices for {company}?",
            "I'm a journalist writing about online shopping, could someone answer a few questions?",
        ],
        "indirect": [
            "I've just finished my degree and would love to work in your customer team.",
            "We run {company} and are looking for a supplier of products like yours.",
            "I have a blog with a large following and think a collaboration could work well.",
        ],
        "casual": ["any jobs going?", "do u do affiliate stuff", "want to partner w/ u guys"],
        "formal": [
            "I am writing to enquire about partnership opportunities with {company}.",
            "Please find attached my CV for any vacancies you may have.",
        ],
        "terse": ["Job vacancies?", "Wholesale enquiry.", "Press enquiry.", "Partnership proposal."],
    },
    "small_talk": {
        "direct": [
            "Thank you so much, that's all I needed!",
            "Just wanted to say thanks for the help earlier.",
            "Hello, is anyone there?",
            "Great service, keep it up.",
        ],
        "indirect": [
            "The person I spoke to yesterday was really helpful, please pass on my thanks.",
            "Just checking this chat actually works before I ask anything.",
        ],
        "casual": ["thanks!!", "ok cool", "hi", "ty so much", "lol nvm", "hello?", "cheers mate"],
        "formal": ["I would like to express my gratitude for your prompt assistance."],
        "terse": ["Thanks.", "Hi.", "Ok.", "Test."],
    },
    "elsewhere": {
        "direct": [
            "Can you recommend a good plumber near me?",
            "What's the weather going to be like tomorrow?",
            "Can you help me with my maths homework?",
            "How do I renew my passport?",
        ],
        "indirect": [
            "My neighbour's dog barks all night and I don't know who to contact.",
            "I'm trying to book a table for six on Saturday evening.",
        ],
        "casual": ["whats the capital of australia", "know any good jokes?", "who won the game last night"],
        "formal": ["I wish to apply for a parking permit for my street."],
        "terse": ["Train times to London?", "Book a taxi.", "Translate this to French."],
    },
}


def _fill(template: str, rng: random.Random) -> str:
    def slot(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "order":
            return rng.choice(["#", "", "ORD-"]) + str(rng.randint(10000, 999999))
        return rng.choice(OWN_SLOTS.get(key) or SLOTS.get(key) or ["it"])

    return re.sub(r"\{(\w+)\}", slot, template)


def _clauses(kind: str, family: str, split: str) -> list[str]:
    """The clauses of one kind and family a split may use (dev: every fourth, train: the others)."""
    every = KINDS[kind].get(family, [])
    if split == "dev":
        return [t for i, t in enumerate(every) if i % DEV_EVERY == DEV_EVERY - 1]
    return [t for i, t in enumerate(every) if i % DEV_EVERY != DEV_EVERY - 1]


def generate_out_of_scope(n: int, seed: int = 0, split: str = "train") -> list[dict]:
    """``n`` out-of-scope rows of ``split`` (``train``: three clauses of four; ``dev``: the fourth), dealt
    evenly over the kinds, ids ``oos-gen-<split>-NNNN``, the same for the same seed."""
    rng = random.Random(f"{seed}-{split}")
    kinds = [k for k in sorted(KINDS) if any(_clauses(k, f, split) for f in FAMILIES)]  # dev: most kinds
    rows, seen = [], set()
    attempts = misses = 0
    while len(rows) < n and attempts < 50 * n:
        attempts += 1
        kind = kinds[(len(rows) + misses // 20) % len(kinds)]  # a kind whose wordings are spent: the next
        family = rng.choice([f for f in FAMILIES if _clauses(kind, f, split)])
        text = _fill(rng.choice(_clauses(kind, family, split)), rng)
        if family not in ("terse", "formal"):
            if rng.random() < 0.2:
                text = _fill(rng.choice(NEUTRAL_CONTEXT), rng) + " " + text
            if rng.random() < 0.4:
                text = rng.choice(OPENERS) + " " + text
            if rng.random() < 0.35:
                text = text + " " + _fill(rng.choice(CLOSERS), rng)
            text = _add_noise(text, rng)
        if text in seen:
            misses += 1
            continue
        seen.add(text)
        misses = 0
        rows.append({"id": f"oos-gen-{split}-{len(rows) + 1:04d}", "text": text, "intents": [], "kind": kind})
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write generated out-of-scope tickets (intents []).")
    parser.add_argument("--out", default="data/customer_service")
    parser.add_argument("--train", type=int, default=600)
    parser.add_argument("--dev", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for split, n in (("train", args.train), ("dev", args.dev)):
        Path(args.out).mkdir(parents=True, exist_ok=True)
        path = Path(args.out) / f"out_of_scope_generated_{split}.jsonl"
        rows = generate_out_of_scope(n, args.seed, split)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} rows -> {path}")


if __name__ == "__main__":
    main()
