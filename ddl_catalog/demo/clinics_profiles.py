"""Fixed facts of the clinics sample: units, specialties, exam types, names and texts.

The units are of clearly unequal size (201 is about ten times 205), and the two smallest
have no MRI scanner, so their exam mix differs as it would in a real network.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Unit:
    code: int
    nome: str
    cidade: str
    uf: str
    opened: date
    exams_per_month: int
    """Exams booked per month at scale 1, before seasonality."""
    staff: dict[str, int]
    """Professionals per category."""
    modalities: tuple[str, ...]
    night_shifts: bool
    """Units open at night (urgent CT) schedule 12-hour night shifts."""
    nearby: tuple[str, ...]


UNITS = (
    Unit(
        201,
        "Paulista Diagnóstico por Imagem",
        "São Paulo",
        "SP",
        date(2012, 3, 5),
        450,
        {"MEDICO": 14, "TECNICO": 16, "ENFERMEIRO": 6, "BIOMEDICO": 4},
        ("RX", "US", "MG", "DO", "TC", "RM"),
        True,
        ("Osasco", "Guarulhos", "Santo André"),
    ),
    Unit(
        202,
        "Campinas Imagem",
        "Campinas",
        "SP",
        date(2015, 8, 17),
        260,
        {"MEDICO": 9, "TECNICO": 10, "ENFERMEIRO": 3, "BIOMEDICO": 2},
        ("RX", "US", "MG", "DO", "TC", "RM"),
        True,
        ("Valinhos", "Sumaré", "Hortolândia"),
    ),
    Unit(
        203,
        "Savassi Diagnósticos",
        "Belo Horizonte",
        "MG",
        date(2017, 2, 6),
        150,
        {"MEDICO": 6, "TECNICO": 6, "ENFERMEIRO": 2, "BIOMEDICO": 1},
        ("RX", "US", "MG", "DO", "TC", "RM"),
        False,
        ("Contagem", "Nova Lima", "Betim"),
    ),
    Unit(
        204,
        "Batel Medicina Diagnóstica",
        "Curitiba",
        "PR",
        date(2019, 5, 13),
        85,
        {"MEDICO": 4, "TECNICO": 4, "ENFERMEIRO": 1, "BIOMEDICO": 1},
        ("RX", "US", "MG", "DO", "TC"),
        False,
        ("São José dos Pinhais", "Colombo"),
    ),
    Unit(
        205,
        "Ribeirão Imagem",
        "Ribeirão Preto",
        "SP",
        date(2021, 9, 20),
        50,
        {"MEDICO": 3, "TECNICO": 3, "ENFERMEIRO": 1, "BIOMEDICO": 1},
        ("RX", "US", "MG", "DO"),
        False,
        ("Sertãozinho", "Cravinhos"),
    ),
)

SPECIALTIES = (
    (1, "Radiologia Torácica", "Imagem do tórax: pulmões, mediastino e coração."),
    (2, "Neurorradiologia", "Imagem do crânio, encéfalo e coluna cervical."),
    (3, "Radiologia Musculoesquelética", "Ossos, articulações, coluna e partes moles."),
    (4, "Imagem da Mulher", "Mama e pelve feminina, incluindo obstetrícia."),
    (5, "Ultrassonografia Geral", "Ultrassom de abdome, tireoide e partes moles."),
    (6, "Radiologia Abdominal", "Tomografia e ressonância do abdome e da pelve."),
)

# (code, description, modality, specialty, report hours, list price, weight, women only)
EXAM_TYPES = (
    (1, "Radiografia de tórax", "RX", 1, 24, "120.00", 14, False),
    (2, "Radiografia de coluna lombar", "RX", 3, 24, "140.00", 6, False),
    (3, "Radiografia de joelho", "RX", 3, 24, "110.00", 5, False),
    (4, "Ultrassonografia de abdome total", "US", 5, 24, "280.00", 10, False),
    (5, "Ultrassonografia obstétrica", "US", 4, 24, "260.00", 5, True),
    (6, "Ultrassonografia de tireoide", "US", 5, 24, "220.00", 5, False),
    (7, "Ultrassonografia de mamas", "US", 4, 24, "240.00", 5, True),
    (8, "Mamografia bilateral", "MG", 4, 48, "210.00", 8, True),
    (9, "Densitometria óssea", "DO", 3, 48, "190.00", 4, False),
    (10, "Tomografia de crânio", "TC", 2, 48, "650.00", 4, False),
    (11, "Tomografia de tórax", "TC", 1, 48, "720.00", 4, False),
    (12, "Tomografia de abdome", "TC", 6, 48, "850.00", 3, False),
    (13, "Ressonância magnética de crânio", "RM", 2, 72, "1450.00", 3, False),
    (14, "Ressonância magnética de joelho", "RM", 3, 72, "1200.00", 3, False),
    (15, "Ressonância magnética de coluna lombar", "RM", 3, 72, "1300.00", 3, False),
    (16, "Ressonância magnética de abdome", "RM", 6, 72, "1600.00", 2, False),
    (17, "Ressonância magnética de mamas", "RM", 4, 72, "1700.00", 1, True),
    (18, "Angiotomografia de coronárias", "TC", 1, 72, "1900.00", 1, False),
)

PLANS = {
    "PARTICULAR": (18, "1.00"),
    "UNIMED": (32, "0.62"),
    "BRADESCO_SAUDE": (18, "0.75"),
    "AMIL": (17, "0.68"),
    "SULAMERICA": (15, "0.80"),
}
"""Health plan → (share of exams, fraction of the list price it pays)."""

MONTH_WEIGHT = {1: 0.82, 2: 0.95, 3: 1.08, 4: 1.05, 5: 1.08, 6: 1.0,
                7: 0.93, 8: 1.08, 9: 1.06, 10: 1.08, 11: 1.0, 12: 0.78}  # fmt: skip
"""Seasonality: holidays in December and January, a July dip, busy autumn and spring."""

FIRST_NAMES_F = (
    "Ana",
    "Beatriz",
    "Camila",
    "Daniela",
    "Eduarda",
    "Fernanda",
    "Gabriela",
    "Helena",
    "Isabela",
    "Juliana",
    "Larissa",
    "Mariana",
    "Natália",
    "Patrícia",
    "Renata",
    "Sofia",
    "Tatiana",
    "Vanessa",
    "Letícia",
    "Aline",
    "Cláudia",
    "Luciana",
    "Sandra",
    "Marta",
)
FIRST_NAMES_M = (
    "André",
    "Bruno",
    "Carlos",
    "Diego",
    "Eduardo",
    "Felipe",
    "Gustavo",
    "Henrique",
    "Igor",
    "João",
    "Lucas",
    "Marcelo",
    "Nelson",
    "Otávio",
    "Paulo",
    "Rafael",
    "Sérgio",
    "Thiago",
    "Vinícius",
    "Rodrigo",
    "Fábio",
    "Leandro",
    "Márcio",
    "Roberto",
)
SURNAMES = (
    "Silva",
    "Santos",
    "Oliveira",
    "Souza",
    "Lima",
    "Pereira",
    "Costa",
    "Ferreira",
    "Rodrigues",
    "Almeida",
    "Nascimento",
    "Carvalho",
    "Gomes",
    "Martins",
    "Araújo",
    "Ribeiro",
    "Barbosa",
    "Rocha",
    "Dias",
    "Teixeira",
    "Moreira",
    "Cardoso",
    "Mendes",
    "Freitas",
    "Barros",
    "Pinto",
    "Vieira",
    "Monteiro",
    "Correia",
    "Moura",
)

COUNCIL = {"MEDICO": "CRM", "TECNICO": "CRTR", "ENFERMEIRO": "COREN", "BIOMEDICO": "CRBM"}
CONTRACT_HOURS = {"MEDICO": (96, 120), "TECNICO": (144,), "ENFERMEIRO": (144,), "BIOMEDICO": (120,)}
SECTOR = {"MEDICO": "LAUDO", "TECNICO": "IMAGEM", "ENFERMEIRO": "IMAGEM", "BIOMEDICO": "RECEPCAO"}

NORMAL_FINDING = "Estruturas avaliadas sem alterações significativas."
ALTERED_FINDINGS = {
    "RX": ("Opacidade em base pulmonar direita.", "Redução do espaço discal em L4-L5.",
           "Osteófitos marginais.", "Derrame articular discreto."),
    "US": ("Esteatose hepática leve.", "Nódulo tireoidiano de 8 mm (TI-RADS 3).",
           "Cisto simples em ovário esquerdo.", "Colelitíase sem sinais de colecistite."),
    "MG": ("Microcalcificações agrupadas (BI-RADS 4).", "Nódulo circunscrito (BI-RADS 3).",
           "Assimetria focal em mama direita."),
    "DO": ("Osteopenia em colo femoral.", "Osteoporose em coluna lombar."),
    "TC": ("Nódulo pulmonar de 6 mm.", "Sinusopatia maxilar.", "Litíase renal à direita.",
           "Enfisema centrolobular."),
    "RM": ("Lesão do menisco medial.", "Protrusão discal em L5-S1.",
           "Focos de hipersinal na substância branca.", "Cisto hepático simples."),
}  # fmt: skip
CRITICAL_FINDINGS = {
    "RX": "Pneumotórax volumoso.",
    "US": "Gestação ectópica rota.",
    "MG": "Lesão altamente suspeita de malignidade (BI-RADS 5).",
    "DO": "Fratura vertebral por fragilidade.",
    "TC": "Hemorragia intracraniana aguda.",
    "RM": "Compressão medular aguda.",
}
REVIEW_NOTES = {
    "ACHADO_NAO_DESCRITO": "Achado visível nas imagens e ausente do laudo.",
    "LATERALIDADE": "Lado descrito não corresponde às imagens.",
    "MEDIDA": "Medida divergente da obtida na releitura.",
    "DIGITACAO": "Erro de ditado altera o sentido da frase.",
    "CONCLUSAO": "Conclusão não reflete os achados descritos.",
}
