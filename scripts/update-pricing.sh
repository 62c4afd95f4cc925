#!/usr/bin/env bash
# Refreshes core/data/pricing.json, the model prices the board's cards are
# costed from where an agent recorded no cost (docs/board.md), from
# genai-prices as PyPI ships it (Pydantic's price data, MIT licence,
# core/data/PRICING-LICENSE). The wheel's genai_prices/data.py is read as
# data (Python's ast), never run. Each model keeps its match rules and the
# list prices in force on the day of the refresh (per million tokens: input,
# output, cache read, cache write; a price tier above N input tokens of one
# request); batch and off-peak variants are left out. Usage:
#   scripts/update-pricing.sh 0.2.5
# then run `cargo test -p taskview-core --test card_facts` (the Claude Code
# captures' recorded costs must still come out) and look at the diff.
set -euo pipefail
VERSION=${1:?usage: $0 GENAI_PRICES_VERSION}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: "genai-prices==$VERSION" -d "$WORK"
python3 - "$WORK" "$VERSION" "$ROOT/core/data" <<'PY'
import ast, datetime, glob, json, sys, zipfile

work, version, out = sys.argv[1:4]
wheel = zipfile.ZipFile(glob.glob(f"{work}/*.whl")[0])
source = wheel.read("genai_prices/data.py").decode()
licence = next(n for n in wheel.namelist() if n.endswith("licenses/LICENSE"))
today = datetime.date.today()

# The providers whose models coding agents run on (directly, or as a
# gateway names them: github-copilot, openrouter).
PROVIDERS = ["anthropic", "openai", "google", "moonshotai", "deepseek", "x-ai",
             "mistral", "zai", "github-copilot"]

def value(node):
    """A constructor call tree as plain data."""
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        if name == "Decimal":
            return float(node.args[0].value)
        if name == "date":
            return datetime.date(*[a.value for a in node.args]).isoformat()
        if name == "time":
            return None
        fields = {k.arg: value(k.value) for k in node.keywords}
        fields["_"] = name
        return fields
    if isinstance(node, ast.List):
        return [value(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {value(k): value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Attribute):
        return None  # datetime.UTC and the like: only in off-peak times, left out
    if isinstance(node, ast.Tuple):
        return [value(e) for e in node.elts]
    raise ValueError(ast.dump(node))

def clause(c):
    """A match clause as {kind: text} or {or|and: [...]}."""
    kind = c["_"]
    if kind in ("ClauseOr", "ClauseAnd"):
        key = "or" if kind == "ClauseOr" else "and"
        return {key: [clause(x) for x in c[key + "_"]]}
    if kind == "ClauseRegex" and c["regex"].startswith("^(?!"):
        # A leading negative lookahead (which Rust's regex has not): `^(?!X)Y`
        # is "not ^X" and "^Y".
        depth, at = 0, 1
        for at in range(1, len(c["regex"])):
            depth += {"(": 1, ")": -1}.get(c["regex"][at], 0)
            if depth == 0:
                break
        negated = {"not": {"regex": "^" + c["regex"][4:at]}}
        rest = c["regex"][at + 1:]
        return {"and": [negated, {"regex": "^" + rest}]} if rest else negated
    field = {"ClauseStartsWith": "starts_with", "ClauseEndsWith": "ends_with",
             "ClauseContains": "contains", "ClauseEquals": "equals", "ClauseRegex": "regex"}[kind]
    return {field: c[field]}

def in_force(prices):
    """The ModelPrice in force today among conditional prices."""
    if not isinstance(prices, list):
        return prices
    live = [p for p in prices
            if p.get("constraint") is None
            or (p["constraint"]["_"] == "StartDateConstraint" and p["constraint"]["start_date"] <= today.isoformat())]
    return live[-1]["prices"] if live else None

def price(p, key):
    v = p.get(key)
    if v is None:
        return None
    if isinstance(v, dict):
        return {"base": v["base"], "tiers": [{"start": t["start"], "price": t["price"]} for t in v["tiers"]]}
    return v

tree = ast.parse(source)
providers = next(value(n.value) for n in tree.body
                 if isinstance(n, ast.AnnAssign) and n.target.id == "providers")
table = []
for p in providers:
    if p["id"] not in PROVIDERS:
        continue
    models = []
    for m in p["models"]:
        prices = in_force(m["prices"])
        if prices is None or prices.get("input_mtok") is None or prices.get("output_mtok") is None:
            continue
        models.append({
            "id": m["id"],
            "match": clause(m["match"]),
            "input": price(prices, "input_mtok"),
            "output": price(prices, "output_mtok"),
            "cache_read": price(prices, "cache_read_mtok"),
            "cache_write": price(prices, "cache_write_mtok"),
        })
    table.append({"id": p["id"], "name": p["name"],
                  "match": clause(p["model_match"]) if p.get("model_match") else None,
                  "pricing_urls": p.get("pricing_urls") or [],
                  "models": models})
table.sort(key=lambda p: PROVIDERS.index(p["id"]))
doc = {
    "source": f"genai-prices {version}",
    "source_url": f"https://pypi.org/project/genai-prices/{version}/",
    "date": today.isoformat(),
    "unit": "USD per million tokens",
    "providers": table,
}
with open(f"{out}/pricing.json", "w") as f:
    json.dump(doc, f, indent=1, sort_keys=False)
    f.write("\n")
open(f"{out}/PRICING-LICENSE", "wb").write(wheel.read(licence))
print(f"wrote core/data/pricing.json: {sum(len(p['models']) for p in table)} models of {len(table)} providers, genai-prices {version}, {today}")
PY
