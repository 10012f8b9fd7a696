"""Reference data of the demo logistics platform: suppliers, carriers, places and words.

Five suppliers (the tenants, codes 101–105) of clearly unequal size, twelve carriers shared
by all of them, and the vocabulary the generator draws names from. Static on purpose: the
generator's randomness is all in `generator.py`, seeded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Category:
    """A product category: names to draw from, price range (BRL) and weight range (kg)."""

    name: str
    items: tuple[str, ...]
    price: tuple[float, float]
    weight: tuple[float, float]


@dataclass(frozen=True)
class SupplierProfile:
    """One tenant: identity, size at scale 1, what it sells and who carries it."""

    code: int
    razao_social: str
    cnpj: str
    uf: str
    cidade: str
    criado_em: date
    orders: int
    customers: int
    products: int
    categories: tuple[Category, ...]
    segments: dict[str, float]
    carriers: dict[int, float]
    """Carrier code → preference weight."""


SUPPLIERS: tuple[SupplierProfile, ...] = (
    SupplierProfile(
        101,
        "Aurora Alimentos S.A.",
        "12345678000190",
        "SP",
        "São Paulo",
        date(2015, 3, 2),
        orders=9000,
        customers=420,
        products=160,
        categories=(
            Category("Mercearia", ("Arroz", "Feijão", "Café", "Açúcar", "Óleo"), (6, 45), (1, 5)),
            Category(
                "Laticínios", ("Queijo", "Iogurte", "Manteiga", "Requeijão"), (5, 60), (0.2, 2)
            ),
            Category("Congelados", ("Pizza", "Lasanha", "Pão de queijo"), (12, 55), (0.5, 2.5)),
        ),
        segments={"VAREJO": 0.55, "ATACADO": 0.3, "ECOMMERCE": 0.15},
        carriers={1: 5, 2: 2, 3: 2, 4: 3, 6: 0.5, 8: 1},
    ),
    SupplierProfile(
        102,
        "Boreal Bebidas Ltda",
        "23456789000181",
        "MG",
        "Belo Horizonte",
        date(2016, 8, 15),
        orders=5200,
        customers=260,
        products=90,
        categories=(
            Category(
                "Refrigerantes",
                ("Refrigerante cola", "Guaraná", "Soda limonada"),
                (4, 12),
                (1, 2.2),
            ),
            Category(
                "Sucos", ("Suco de uva", "Suco de laranja", "Néctar de pêssego"), (6, 18), (1, 1.6)
            ),
            Category("Águas", ("Água mineral", "Água com gás"), (2, 6), (0.5, 1.6)),
        ),
        segments={"VAREJO": 0.45, "ATACADO": 0.45, "ECOMMERCE": 0.1},
        carriers={2: 6, 5: 2, 4: 2, 8: 2},
    ),
    SupplierProfile(
        103,
        "Cerrado Cosméticos Ltda",
        "34567890000172",
        "GO",
        "Goiânia",
        date(2018, 1, 10),
        orders=3300,
        customers=170,
        products=70,
        categories=(
            Category(
                "Cabelos", ("Shampoo", "Condicionador", "Máscara capilar"), (12, 80), (0.2, 1)
            ),
            Category(
                "Pele", ("Hidratante", "Protetor solar", "Sabonete facial"), (15, 120), (0.1, 0.5)
            ),
            Category("Perfumaria", ("Colônia", "Desodorante"), (20, 220), (0.1, 0.4)),
        ),
        segments={"VAREJO": 0.5, "ECOMMERCE": 0.35, "ATACADO": 0.15},
        carriers={5: 4, 1: 2, 6: 2, 7: 1.5, 12: 1},
    ),
    SupplierProfile(
        104,
        "Delta Autopeças Ltda",
        "45678901000163",
        "PR",
        "Curitiba",
        date(2019, 5, 20),
        orders=1950,
        customers=110,
        products=120,
        categories=(
            Category(
                "Freios",
                ("Pastilha de freio", "Disco de freio", "Fluido de freio"),
                (40, 450),
                (0.3, 8),
            ),
            Category(
                "Suspensão", ("Amortecedor", "Mola helicoidal", "Bieleta"), (60, 900), (1, 15)
            ),
            Category(
                "Elétrica", ("Bateria", "Alternador", "Vela de ignição"), (25, 850), (0.1, 14)
            ),
        ),
        segments={"INDUSTRIA": 0.4, "ATACADO": 0.35, "VAREJO": 0.25},
        carriers={3: 5, 9: 2, 4: 1, 10: 1},
    ),
    SupplierProfile(
        105,
        "Estrela Têxtil ME",
        "56789012000154",
        "SC",
        "Blumenau",
        date(2020, 9, 1),
        orders=1400,
        customers=60,
        products=40,
        categories=(
            Category("Cama", ("Jogo de lençol", "Edredom", "Fronha"), (35, 320), (0.4, 3)),
            Category(
                "Banho", ("Toalha de banho", "Roupão", "Toalha de rosto"), (18, 160), (0.2, 1.5)
            ),
            Category("Mesa", ("Toalha de mesa", "Jogo americano"), (25, 140), (0.3, 1.2)),
        ),
        segments={"VAREJO": 0.6, "ECOMMERCE": 0.3, "ATACADO": 0.1},
        carriers={3: 4, 11: 1, 7: 1, 1: 1},
    ),
)

CARRIERS: tuple[tuple[int, str, str, float], ...] = (
    # code, name, modal, probability that a load arrives late
    (1, "Rápido Paulista Transportes", "RODOVIARIO", 0.08),
    (2, "TransMinas Cargas", "RODOVIARIO", 0.12),
    (3, "Expresso Sul Logística", "RODOVIARIO", 0.07),
    (4, "Rodonorte Transportes", "RODOVIARIO", 0.28),
    (5, "Via Cerrado Cargas", "RODOVIARIO", 0.15),
    (6, "AeroCargo Brasil", "AEREO", 0.05),
    (7, "JetLog Express", "AEREO", 0.1),
    (8, "Ferrovia Centro-Atlântica Log", "FERROVIARIO", 0.18),
    (9, "Trilhos do Sul", "FERROVIARIO", 0.14),
    (10, "Cabotagem Atlântico", "MARITIMO", 0.22),
    (11, "Navegação Costa Azul", "MARITIMO", 0.2),
    (12, "Translog Nordeste", "RODOVIARIO", 0.16),
)

MODAL_LEAD_DAYS = {"RODOVIARIO": 2, "AEREO": 1, "FERROVIARIO": 5, "MARITIMO": 10}
"""Base days in transit; road transport adds a day per region crossed."""
MODAL_FREIGHT_PER_KG = {"RODOVIARIO": 0.45, "AEREO": 3.2, "FERROVIARIO": 0.25, "MARITIMO": 0.18}

CITIES: tuple[tuple[str, str, str], ...] = (
    # city, UF, region
    ("São Paulo", "SP", "SE"),
    ("Campinas", "SP", "SE"),
    ("Ribeirão Preto", "SP", "SE"),
    ("Santos", "SP", "SE"),
    ("Rio de Janeiro", "RJ", "SE"),
    ("Niterói", "RJ", "SE"),
    ("Belo Horizonte", "MG", "SE"),
    ("Uberlândia", "MG", "SE"),
    ("Juiz de Fora", "MG", "SE"),
    ("Vitória", "ES", "SE"),
    ("Curitiba", "PR", "S"),
    ("Londrina", "PR", "S"),
    ("Joinville", "SC", "S"),
    ("Blumenau", "SC", "S"),
    ("Florianópolis", "SC", "S"),
    ("Porto Alegre", "RS", "S"),
    ("Caxias do Sul", "RS", "S"),
    ("Goiânia", "GO", "CO"),
    ("Brasília", "DF", "CO"),
    ("Campo Grande", "MS", "CO"),
    ("Cuiabá", "MT", "CO"),
    ("Salvador", "BA", "NE"),
    ("Recife", "PE", "NE"),
    ("Fortaleza", "CE", "NE"),
    ("Natal", "RN", "NE"),
    ("São Luís", "MA", "NE"),
    ("Manaus", "AM", "N"),
    ("Belém", "PA", "N"),
)

HUBS = {
    "SE": ("Cajamar", "SP"),
    "S": ("Curitiba", "PR"),
    "CO": ("Anápolis", "GO"),
    "NE": ("Feira de Santana", "BA"),
    "N": ("Belém", "PA"),
}
"""Distribution hub (city, state) a shipment passes through in each region."""

CUSTOMER_PREFIX = {
    "VAREJO": ("Supermercado", "Mercado", "Loja", "Empório", "Drogaria", "Magazine"),
    "ATACADO": ("Atacadão", "Distribuidora", "Comercial Atacadista", "Central de Compras"),
    "INDUSTRIA": ("Indústria", "Metalúrgica", "Oficina Industrial", "Montadora"),
    "ECOMMERCE": ("Loja Virtual", "Marketplace", "E-shop", "Clube de Assinatura"),
}
CUSTOMER_CORE = (
    "Bom Preço",
    "São Jorge",
    "Horizonte",
    "Progresso",
    "Santa Luzia",
    "Nova Era",
    "Estrela",
    "Primavera",
    "Boa Vista",
    "Vale Verde",
    "Ipiranga",
    "Aliança",
    "Bandeirantes",
    "Litoral",
    "Serra Azul",
    "Pioneiro",
    "União",
    "Cristal",
    "Real",
    "Imperial",
    "Paraíso",
    "Sol Nascente",
)
CUSTOMER_SUFFIX = ("Ltda", "S.A.", "ME", "EIRELI")
SIZES = ("P", "M", "G", "500 g", "1 kg", "2 L", "350 ml", "kit 3 un", "cx 12 un", "premium")

CHANNELS = {
    "VAREJO": {"PORTAL": 0.5, "VENDEDOR": 0.4, "EDI": 0.1},
    "ATACADO": {"EDI": 0.6, "VENDEDOR": 0.3, "PORTAL": 0.1},
    "INDUSTRIA": {"EDI": 0.5, "API": 0.3, "VENDEDOR": 0.2},
    "ECOMMERCE": {"API": 0.8, "PORTAL": 0.2},
}
PAYMENT_TERMS = {
    "VAREJO": (28, 30, 45),
    "ATACADO": (45, 60),
    "INDUSTRIA": (30, 60, 90),
    "ECOMMERCE": (21, 28),
}
"""Days from issue to due date by customer segment; never under 21 (see blocking)."""

SEASONALITY = {
    1: 0.82,
    2: 0.85,
    3: 0.97,
    4: 0.95,
    5: 1.05,
    6: 0.96,
    7: 0.93,
    8: 1.0,
    9: 1.0,
    10: 1.06,
    11: 1.3,
    12: 1.22,
}
"""Monthly order weight: Black Friday and Christmas peaks, a slow January."""
YEARLY_GROWTH = 0.15

BLOCK_REASON_OVERDUE = "Cliente com título vencido (inadimplência)"
OTHER_BLOCK_REASONS = (
    "Divergência no cadastro do destinatário",
    "Limite de crédito excedido",
    "Pendência fiscal na SEFAZ",
)
INCIDENTS = (
    "Atraso na rota por condições climáticas",
    "Destinatário ausente, nova tentativa agendada",
    "Avaria parcial na embalagem",
    "Retenção em posto fiscal",
    "Endereço incompleto, aguardando contato",
)
