"""render.py: renders a Hugging Face chat template as transformers'
apply_chat_template does (jinja2's sandboxed environment with trim_blocks
and lstrip_blocks, the tojson filter, raise_exception), the reference that
pkg/tokenizer's chat tests compare with.

Usage: python3 render.py TOKENIZER_CONFIG_JSON < cases.jsonl

Each input line is a JSON object {"messages": [...], "kwargs": {...}};
each output line is the JSON string of the rendering with
add_generation_prompt=True, or {"error": MESSAGE} where the template raises
an exception. As transformers does, the template is given the special
tokens of the file (bos_token, eos_token, unk_token, pad_token) as
strings. Needs jinja2 (Debian: python3-jinja2).
"""
import json
import sys

from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def special_tokens(cfg):
    """The special tokens of a tokenizer_config.json, as strings (an
    AddedToken object gives its content)."""
    out = {}
    for name in ("bos_token", "eos_token", "unk_token", "pad_token"):
        v = cfg.get(name)
        if isinstance(v, dict):
            v = v.get("content")
        if isinstance(v, str):
            out[name] = v
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    template = cfg["chat_template"]
    tokens = special_tokens(cfg)
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    compiled = env.from_string(template)
    for line in sys.stdin:
        case = json.loads(line)
        kwargs = {**tokens, **case.get("kwargs", {})}
        try:
            text = compiled.render(messages=case["messages"], add_generation_prompt=True, **kwargs)
        except TemplateError as e:
            print(json.dumps({"error": str(e)}))
            continue
        print(json.dumps(text))


main()
