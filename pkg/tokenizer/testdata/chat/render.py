"""render.py: renders a Hugging Face chat template as transformers'
apply_chat_template does (jinja2's sandboxed environment with trim_blocks
and lstrip_blocks, the tojson filter, raise_exception), the reference that
pkg/tokenizer's chat tests compare with.

Usage: python3 render.py TOKENIZER_CONFIG_JSON < cases.jsonl

Each input line is a JSON object {"messages": [...], "kwargs": {...}};
each output line is the JSON string of the rendering with
add_generation_prompt=True. Needs jinja2 (Debian: python3-jinja2).
"""
import json
import sys

from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        template = json.load(f)["chat_template"]
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    compiled = env.from_string(template)
    for line in sys.stdin:
        case = json.loads(line)
        text = compiled.render(messages=case["messages"], add_generation_prompt=True, **case.get("kwargs", {}))
        print(json.dumps(text))


main()
