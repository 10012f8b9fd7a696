"""A schema modelled on the DVD-rental sample, in a database of its own, for import tests.

The tenant is the store (`store_id`). It holds what real schemas hold: an enum
(`mpaa_rating`), a domain (`year`), a `text[]`, a `tsvector`, a generated column, comments,
foreign keys along store → inventory → rental → payment and customer → store, a payment table
partitioned by range of `payment_date` whose key to rental is declared on each partition only
(as pg_dump writes the pagila sample), a view and a materialized view,
a table that references tenant data and shared data (`note`, never proposed shared), and
one with two paths to the tenant (`feedback`: customer, one hop; rental, two).
"""

from __future__ import annotations

import asyncpg

from tests.databases import fresh_database

SCHEMA_SQL = """
CREATE TYPE mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17');
CREATE DOMAIN year AS integer CHECK (VALUE >= 1901 AND VALUE <= 2155);
CREATE TABLE language (language_id serial PRIMARY KEY, name char(20) NOT NULL);
CREATE TABLE store (store_id serial PRIMARY KEY, manager_name text NOT NULL);
CREATE TABLE film (
    film_id serial PRIMARY KEY,
    title text NOT NULL,
    description text,
    release_year year,
    language_id integer NOT NULL REFERENCES language,
    rental_rate numeric(4,2) NOT NULL DEFAULT 4.99,
    length smallint,
    rating mpaa_rating DEFAULT 'G',
    special_features text[],
    fulltext tsvector NOT NULL,
    title_upper text GENERATED ALWAYS AS (upper(title)) STORED
);
CREATE INDEX film_fulltext_idx ON film USING gist (fulltext);
CREATE TABLE customer (
    customer_id serial PRIMARY KEY,
    store_id integer NOT NULL REFERENCES store,
    first_name text NOT NULL,
    email text,
    activebool boolean NOT NULL DEFAULT true
);
CREATE TABLE inventory (
    inventory_id serial PRIMARY KEY,
    film_id integer NOT NULL REFERENCES film,
    store_id integer NOT NULL REFERENCES store
);
CREATE TABLE rental (
    rental_id serial PRIMARY KEY,
    rental_date timestamptz NOT NULL,
    inventory_id integer NOT NULL REFERENCES inventory,
    return_date timestamptz
);
CREATE TABLE payment (
    payment_id serial,
    rental_id integer NOT NULL,
    amount numeric(5,2) NOT NULL,
    payment_date timestamptz NOT NULL,
    PRIMARY KEY (payment_date, payment_id)
) PARTITION BY RANGE (payment_date);
CREATE TABLE payment_p2022_01 PARTITION OF payment
    FOR VALUES FROM ('2022-01-01') TO ('2022-02-01');
CREATE TABLE payment_p2022_02 PARTITION OF payment
    FOR VALUES FROM ('2022-02-01') TO ('2022-03-01');
CREATE INDEX payment_rental_idx ON payment (rental_id);
-- as in pg_dump's pagila: the key lives on each partition, not on the partitioned table
ALTER TABLE ONLY payment_p2022_01 ADD FOREIGN KEY (rental_id) REFERENCES rental;
ALTER TABLE ONLY payment_p2022_02 ADD FOREIGN KEY (rental_id) REFERENCES rental;
CREATE TABLE note (
    note_id serial PRIMARY KEY,
    rental_id integer REFERENCES rental,
    film_id integer REFERENCES film,
    body text NOT NULL
);
CREATE TABLE feedback (
    feedback_id serial PRIMARY KEY,
    customer_id integer NOT NULL REFERENCES customer,
    rental_id integer REFERENCES rental,
    stars smallint NOT NULL
);
-- two feedback rows: one whose paths (customer; rental → inventory) name the same store, one
-- whose customer belongs to store 1 but rented a copy of store 2
INSERT INTO store VALUES (1, 'Ana'), (2, 'Bo');
INSERT INTO language VALUES (1, 'English');
INSERT INTO film (film_id, title, language_id, fulltext)
    VALUES (1, 'Alien', 1, to_tsvector('alien'));
INSERT INTO customer (customer_id, store_id, first_name) VALUES (1, 1, 'Cy');
INSERT INTO inventory VALUES (1, 1, 1), (2, 1, 2);
INSERT INTO rental (rental_id, rental_date, inventory_id) VALUES (1, now(), 1), (2, now(), 2);
INSERT INTO feedback (customer_id, rental_id, stars) VALUES (1, 1, 5), (1, 2, 3);
COMMENT ON TABLE film IS 'Films the chain rents out';
COMMENT ON COLUMN film.rating IS 'Age rating';
COMMENT ON COLUMN rental.return_date IS 'When the copy came back; null while out';
CREATE VIEW film_list AS
    SELECT f.film_id, f.title, f.rating, l.name AS language
    FROM film f JOIN language l USING (language_id);
CREATE MATERIALIZED VIEW sales_by_store AS
    SELECT i.store_id, sum(p.amount) AS total_sales
    FROM payment p JOIN rental r USING (rental_id) JOIN inventory i USING (inventory_id)
    GROUP BY i.store_id;
"""


async def create_rental_database(server_url: str, name: str, schema: str = "public") -> str:
    """A fresh database `name` holding the schema above in `schema`; returns its URL."""
    url = await fresh_database(server_url, name)
    conn = await asyncpg.connect(url)
    try:
        if schema != "public":
            await conn.execute(f'CREATE SCHEMA "{schema}"; SET search_path TO "{schema}"')
        await conn.execute(SCHEMA_SQL)
    finally:
        await conn.close()
    return url
