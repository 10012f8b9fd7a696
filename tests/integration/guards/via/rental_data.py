"""Deterministic rows for the via-parent schema (catalog/): a rental chain of three stores.

Only the root tables carry the store; rentals, payments, notes and supply lines belong to
the store of their parent row. The data holds the traps a tenancy-through-parents guard must
survive: stores of unequal size, supply order numbers that collide across stores, NULL
parent keys (rows that belong to nobody), notes naming another customer than their rental's
(belong to nobody), orphan supply lines, and rentals and payments whose `customer_id` or
`staff_id` point into another store than the one their parent chain gives them.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

SEED = 14
STORES = {1: ("Downtown", "Lisbon", 700, 240, 5, 30), 2: ("Harbour", "Porto", 350, 120, 3, 20)}
STORES[3] = ("Hillside", "Braga", 120, 40, 2, 8)
"""store_id → (name, city, copies, customers, staff, supply orders): clearly unequal."""
FILMS = 120
START = datetime(2026, 1, 1, 9, tzinfo=UTC)
RATINGS = ("G", "PG", "PG-13", "R", "NC-17")
CATEGORIES = ("Action", "Animation", "Comedy", "Documentary", "Drama", "Family", "Horror", "Sci-Fi")
LANGUAGES = ("English", "Portuguese", "Spanish", "French")

Rows = dict[str, list[tuple]]


def rental_chain_rows(seed: int = SEED) -> Rows:
    """Every table's rows, in catalog column order; the same rows for the same seed."""
    rnd = random.Random(seed)
    rows: Rows = _films(rnd)
    rows.update(_stores(rnd))
    rows.update(_rentals(rnd, rows))
    rows.update(_purchasing(rnd))
    rows["featured_film"] = [
        (date(2026, 1, 5) + timedelta(weeks=w), rnd.randint(1, FILMS), rnd.choice(list(STORES)))
        for w in range(26)
    ]
    return rows


def _films(rnd: random.Random) -> Rows:
    films = [
        (
            f,
            f"Film {f:03d}",
            rnd.randint(1990, 2025),
            rnd.randint(1, len(LANGUAGES)),
            Decimal(rnd.choice(("0.99", "2.99", "4.99"))),
            rnd.randint(60, 180),
            rnd.choice(RATINGS),
        )
        for f in range(1, FILMS + 1)
    ]
    film_category = sorted(
        {(f, rnd.randint(1, len(CATEGORIES))) for f in range(1, FILMS + 1) for _ in range(2)}
    )
    return {
        "language": list(enumerate(LANGUAGES, start=1)),
        "category": list(enumerate(CATEGORIES, start=1)),
        "film": films,
        "film_category": film_category,
    }


def _stores(rnd: random.Random) -> Rows:
    """Roots; ids are interleaved across stores so an id range says nothing of the store."""
    out: Rows = {"store": [], "staff": [], "customer": [], "inventory": []}
    for store_id, (name, city, _, _, _, _) in STORES.items():
        out["store"].append((store_id, name, city, date(2015 + store_id, 3, 1)))
    owners = {
        kind: _shuffled(rnd, [s for s, spec in STORES.items() for _ in range(spec[index])])
        for kind, index in (("inventory", 2), ("customer", 3), ("staff", 4))
    }
    for staff_id, store_id in enumerate(owners["staff"], start=1):
        out["staff"].append((staff_id, store_id, f"Staff{staff_id}", "Doe", staff_id % 4 != 0))
    for customer_id, store_id in enumerate(owners["customer"], start=1):
        email = None if customer_id % 9 == 0 else f"c{customer_id}@example.org"
        created = date(2025, 1, 1) + timedelta(days=rnd.randint(0, 500))
        out["customer"].append(
            (customer_id, store_id, f"Name{customer_id}", f"Family{customer_id % 37}", email,
             rnd.random() > 0.1, created)
        )  # fmt: skip
    for inventory_id, store_id in enumerate(owners["inventory"], start=1):
        out["inventory"].append((inventory_id, rnd.randint(1, FILMS), store_id))
    return out


def _rentals(rnd: random.Random, rows: Rows) -> Rows:
    store_of_copy = {i: s for i, _, s in rows["inventory"]}
    customers = _by_store(rows["customer"])
    staff = _by_store(rows["staff"])
    rental, payment, note = [], [], []
    for rental_id in range(1, 3001):
        copy = rnd.randint(1, len(store_of_copy))
        store = store_of_copy[copy]
        # A rental's customer or clerk may come from another store: only the copy decides.
        customer = rnd.choice(customers[store] if rnd.random() < 0.8 else _all(customers))
        clerk = rnd.choice(staff[store] if rnd.random() < 0.85 else _all(staff))
        when = START + timedelta(minutes=rnd.randint(0, 180 * 24 * 60))
        returned = None if rnd.random() < 0.08 else when + timedelta(days=rnd.randint(1, 9))
        inventory_id = None if rnd.random() < 0.03 else copy  # NULL key: nobody's rental
        rental.append((rental_id, when, inventory_id, customer, returned, clerk))
        for _ in range(rnd.choices((0, 1, 2), (10, 80, 10))[0]):
            payer = customer if rnd.random() < 0.85 else rnd.choice(_all(customers))
            cashier = rnd.choice(staff[store] if rnd.random() < 0.8 else _all(staff))
            rental_ref = None if rnd.random() < 0.03 else rental_id  # a fee with no rental
            amount = Decimal(rnd.randint(99, 1199)) / 100
            paid = when + timedelta(hours=rnd.randint(0, 240))
            payment.append((len(payment) + 1, payer, cashier, rental_ref, amount, paid))
    for note_id in range(1, 401):
        r = rnd.choice(rental)
        customer = rnd.choices((r[3], rnd.choice(_all(customers)), None), (75, 12, 13))[0]
        written = r[1] + timedelta(hours=rnd.randint(1, 48))
        note.append((note_id, r[0], customer, rnd.choice(("late", "damaged", "ok")), written))
    return {"rental": rental, "payment": payment, "rental_note": note}


def _purchasing(rnd: random.Random) -> Rows:
    """Order numbers restart at 1 in every store; a few lines point at no order at all."""
    orders, lines = [], []
    for store_id, spec in STORES.items():
        for order_no in range(1, spec[5] + 1):
            on = date(2026, 1, 2) + timedelta(days=rnd.randint(0, 170))
            status = rnd.choice(("OPEN", "RECEIVED", "RECEIVED", "CANCELLED"))
            orders.append(
                (store_id, order_no, on, rnd.choice(("Acme", "Globex", "Initech")), status)
            )
            for line_no in range(1, rnd.randint(1, 4) + 1):
                lines.append(_line(rnd, store_id, order_no, line_no))
    for store_id, order_no in ((3, 25), (3, 26), (9, 1), (2, 99)):
        lines.append(_line(rnd, store_id, order_no, 1))  # orphans: nobody's lines
    return {"supply_order": orders, "supply_line": lines}


def _line(rnd: random.Random, store_id: int, order_no: int, line_no: int) -> tuple:
    cost = Decimal(rnd.randint(300, 2500)) / 100
    return (store_id, order_no, line_no, rnd.randint(1, FILMS), rnd.randint(1, 12), cost)


def _shuffled(rnd: random.Random, items: list[int]) -> list[int]:
    rnd.shuffle(items)
    return items


def _by_store(rows: list[tuple]) -> dict[int, list[int]]:
    """Root rows (id, store_id, ...) → ids per store."""
    out: dict[int, list[int]] = {}
    for row in rows:
        out.setdefault(row[1], []).append(row[0])
    return out


def _all(ids_by_store: dict[int, list[int]]) -> list[int]:
    return [i for ids in ids_by_store.values() for i in ids]
