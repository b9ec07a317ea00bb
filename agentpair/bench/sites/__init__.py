"""Generated multi-page sites served on loopback, one module per family, and the split fixed before tuning.

THE SPLIT IS FIXED HERE. `REPORT_FAMILIES` (forum, gradebook, helpdesk, lettings, events, crm) are the
report families: never used for development, rules, reading runs or training data; only their benchmark
figures are read, on `REPORT_SEEDS`. Development and tuning use `DEV_FAMILIES` (shop, jobs, clinic,
accounts, mail, wiki) on `DEV_SEEDS` only. Do not move a family between the two.
"""

from __future__ import annotations

from agentpair.bench.sites import (
    accounts, clinic, crm, events, forum, gradebook, helpdesk, jobs, lettings, mail, shop, wiki,
)
from agentpair.bench.sites.base import Template

DEV_FAMILIES = {"shop": shop.TEMPLATES, "jobs": jobs.TEMPLATES, "clinic": clinic.TEMPLATES,
                "accounts": accounts.TEMPLATES, "mail": mail.TEMPLATES, "wiki": wiki.TEMPLATES}
REPORT_FAMILIES = {"forum": forum.TEMPLATES, "gradebook": gradebook.TEMPLATES, "helpdesk": helpdesk.TEMPLATES,
                   "lettings": lettings.TEMPLATES, "events": events.TEMPLATES, "crm": crm.TEMPLATES}
SPLITS: dict[str, dict[str, dict[str, Template]]] = {"dev": DEV_FAMILIES, "report": REPORT_FAMILIES}
DEV_SEEDS = (0, 1, 2, 3, 4)
REPORT_SEEDS = (100, 101, 102)
SEEDS = {"dev": DEV_SEEDS, "report": REPORT_SEEDS}
