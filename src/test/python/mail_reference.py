"""The independent decoder the real-world mail test compares agent-tools against: Python's own `email` package.

    python3 mail_reference.py queries CORPUS_DIR QUERIES.json
    python3 mail_reference.py compare CORPUS_DIR TOOL_OUTPUT.json DIFFERENCES.json REPORT.txt

`queries` writes, per file, Gmail searches that must find the message, built from what Python decodes (a word of
the subject, else the Message-ID; and has:attachment with filename: and its first attachment's name), so a search
test cannot pass on the tools' own mis-decoding.

CORPUS_DIR holds the .eml files the emulator served; TOOL_OUTPUT.json is what the tools answered for each file
(written by RealWorldMailTest: per file name, the list/search results and get_email's data or error);
DIFFERENCES.json lists the reviewed, documented differences (file, field, why). For every message and field
this prints one table row, writes it to REPORT.txt and exits 1 when any difference is not documented, any
tool call failed, or a documented difference no longer occurs (so the list cannot go stale).

What "equal" means, field by field (the rules are here so they can be reviewed in one place):
- subject: str(msg['subject']) under policy `default`, whitespace runs collapsed; missing or blank is
  "(no subject)", as the tools say.
- from, to, cc: both sides parsed by the same Python address parser; equal when the (display name, address)
  pairs are equal, so `"Amy" <a@x>` and `Amy <a@x>` agree. Headers Python cannot parse into addresses are
  compared as text, whitespace collapsed.
- date: the Date header's instant and offset per email.utils.parsedate_to_datetime (named zones included);
  when Python finds no valid date the tools must fall back to the arrival time and say so (date_source).
- body: Python's get_body(('plain', 'html')): text/plain as is, HTML reduced to its text; then, for every
  message/rfc822 part in the tree, the forwarded message's own body under the tools' separator. Compared with
  line ends, trailing spaces and blank-line runs normalised; HTML bodies as word sequences (the tools keep
  links as `text (url)`, which are dropped before comparing).
- attachments: the file name of every part that has one (get_filename()), in tree order, the top part,
  message/rfc822 parts and the parts of forwarded messages included.
"""
import email
import email.header
import email.policy
import email.utils
import html.parser
import json
import os
import re
import sys
from datetime import timezone

FORWARD_SEPARATOR = "---------- Forwarded message ----------"
FIELDS = ("listed", "searched", "attachment_searched", "fetched", "subject", "from", "to", "cc", "date", "body", "attachments")


def collapse(text):
    return re.sub(r"\s+", " ", text or "").strip()


class _HtmlText(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "head", "title"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "head", "title") and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def html_words(markup):
    p = _HtmlText()
    p.feed(markup)
    return collapse(" ".join(p.out))


def part_text(part):
    try:
        return part.get_content()
    except (LookupError, UnicodeError, KeyError, AssertionError):
        payload = part.get_payload(decode=True) or b""
        return payload.decode("utf-8", "replace")


def own_body(msg):
    """(kind, text) of a message's readable body, not looking inside forwarded messages."""
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except Exception:  # a malformed tree: Python gives up too; treat as no body
        part = None
    if part is None:
        return "plain", ""
    text = part_text(part)
    if not isinstance(text, str):
        return "plain", ""
    return ("html", text) if part.get_content_subtype() == "html" else ("plain", text)


def forwarded_parts(msg):
    """message/rfc822 parts in tree order, each the forwarded Message (one level: nested forwards stay inside)."""
    found = []

    def walk(part):
        for sub in part.iter_parts() if part.is_multipart() else []:
            if sub.get_content_type() == "message/rfc822":
                inner = sub.get_payload()
                if isinstance(inner, list) and inner:
                    found.append(inner[0])
            elif sub.get_content_maintype() == "multipart":
                walk(sub)

    walk(msg)
    return found


def decoded_raw(msg, name):
    """A header as sent, encoded words decoded (no re-formatting, unlike str() of a parsed header)."""
    for key, raw in msg.raw_items():
        if key.lower() == name.lower():
            if any("\udc80" <= c <= "\udcff" for c in raw):  # raw 8-bit bytes: UTF-8, as policy default reads them
                raw = raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            try:
                return collapse(str(email.header.make_header(email.header.decode_header(raw))))
            except (LookupError, UnicodeError, ValueError):
                return collapse(raw)
    return None


def header_text(msg, name):
    """str() of the parsed header under policy default; the decoded raw value where Python's parser raises."""
    try:
        value = msg.get(name)
        return "" if value is None else str(value)
    except (ValueError, TypeError, IndexError, AttributeError):
        return decoded_raw(msg, name) or ""


def forward_header_block(inner):
    lines = [FORWARD_SEPARATOR]
    for name in ("From", "Date", "Subject", "To", "Cc"):
        value = decoded_raw(inner, name)
        if value:
            lines.append(f"{name}: {value}")
    return "\n".join(lines)


def normalise_text(text):
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.rstrip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def expected_body(msg):
    kind, text = own_body(msg)
    pieces = [(kind, text)]
    for inner in forwarded_parts(msg):
        pieces.append(("plain", forward_header_block(inner)))
        pieces.append(own_body(inner))
    return pieces


def attachment_names(msg):
    names = []
    for part in msg.walk():
        try:
            name = part.get_filename()
        except Exception:
            name = None
        if name:
            names.append(name)
    return names


def addresses(value):
    """(display name, address) pairs as Python parses them, or None when it cannot."""
    if value is None:
        return []
    try:
        header = email.policy.default.header_factory("to", value)
        pairs = [(a.display_name, a.addr_spec.lower()) for a in header.addresses]
        return pairs if pairs or not collapse(value) else None
    except Exception:
        return None


def same_addresses(expected_raw, actual):
    want, got = addresses(expected_raw), addresses(actual)
    if want is not None and got is not None:
        return want == got
    return collapse(str(expected_raw or "")) == collapse(actual or "")


def expected_date(msg):
    raw = msg.get("date")
    if raw is None:
        return None
    try:
        parsed = getattr(raw, "datetime", None) or email.utils.parsedate_to_datetime(str(raw))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed is None:
        return None
    if parsed.tzinfo is None:  # "-0000": UTC, local zone unknown
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed


def compare_body(pieces, actual):
    """Compares the tools' body with the expected pieces; HTML pieces as words, links dropped."""
    if all(kind == "plain" for kind, _ in pieces):
        want = normalise_text("\n\n".join(t for _, t in pieces if normalise_text(t)))
        return want == normalise_text(actual or ""), want
    want = collapse(" ".join(html_words(t) if kind == "html" else t for kind, t in pieces))
    got = collapse(re.sub(r" \((?:https?|mailto|ftp):[^)\s]*\)", "", actual or ""))
    return want == got, want


def check(path, out):
    """Rows (field, ok, expected, actual) for one message."""
    with open(path, "rb") as f:
        msg = email.message_from_binary_file(f, policy=email.policy.default)
    rows = []
    rows.append(("listed", out.get("listed") is True, True, out.get("list_error") or out.get("listed")))
    rows.append(("searched", out.get("searched") is True, True, out.get("search_error") or out.get("searched")))
    if "attachment_searched" in out:
        rows.append(("attachment_searched", out.get("attachment_searched") is True, True,
                     out.get("attachment_search_error") or out.get("attachment_searched")))
    got = out.get("get")
    rows.append(("fetched", got is not None, True, out.get("get_error")))
    if got is None:
        return rows
    subject = collapse(header_text(msg, "subject")) or "(no subject)"
    rows.append(("subject", subject == collapse(got.get("subject")), subject, got.get("subject")))
    for name in ("from", "to", "cc"):
        raw = decoded_raw(msg, name)
        rows.append((name, same_addresses(raw, got.get(name)), raw, got.get(name)))
    want_date = expected_date(msg)
    if want_date is None:
        ok = got.get("date_source") == "arrival"
        rows.append(("date", ok, "arrival time, flagged", f"{got.get('date')} ({got.get('date_source')})"))
    else:
        want = want_date.isoformat()
        actual = got.get("date") or ""
        try:
            from datetime import datetime
            parsed = datetime.fromisoformat(actual.replace("Z", "+00:00"))
            ok = parsed == want_date and parsed.utcoffset() == want_date.utcoffset()
        except ValueError:
            ok = False
        rows.append(("date", ok, want, actual))
    ok, want = compare_body(expected_body(msg), got.get("body"))
    rows.append(("body", ok, want, got.get("body")))
    names = attachment_names(msg)
    actual_names = [a.get("filename") for a in got.get("attachments") or []]
    rows.append(("attachments", names == actual_names, names, actual_names))
    return rows


def short(value, limit=70):
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main(corpus, tool_output, differences, report):
    with open(tool_output, encoding="utf-8") as f:
        outputs = json.load(f)
    with open(differences, encoding="utf-8") as f:
        documented = {(d["file"], d["field"]): d["why"] for d in json.load(f)["differences"]}
    lines, unexplained, used, identical, explained_messages = [], [], set(), 0, 0
    files = sorted(n for n in os.listdir(corpus) if n.endswith(".eml"))
    failures = 0
    for name in files:
        rows = check(os.path.join(corpus, name), outputs.get(name, {}))
        bad = [r for r in rows if not r[1]]
        failures += any(r[0] in ("listed", "searched", "attachment_searched", "fetched") for r in bad)
        if not bad:
            identical += 1
            continue
        message_explained = True
        for field, _, want, got in bad:
            why = documented.get((name, field))
            if why is None:
                message_explained = False
                unexplained.append((name, field))
                lines.append(f"DIFF  {name} {field}: expected {short(want)} got {short(got)}")
            else:
                used.add((name, field))
                lines.append(f"known {name} {field}: {why}")
        explained_messages += message_explained
    stale = sorted(set(documented) - used)
    for name, field in stale:
        lines.append(f"STALE {name} {field}: documented difference no longer occurs; remove it")
    summary = (f"messages {len(files)}, identical {identical}, documented differences {explained_messages}, "
               f"undocumented differences {len(files) - identical - explained_messages}, failures {failures}")
    text = "\n".join([summary] + lines) + "\n"
    with open(report, "w", encoding="utf-8", errors="backslashreplace") as f:
        f.write(text)
    print(text, end="")
    return 1 if unexplained or stale or failures else 0


def queries(corpus, out):
    result = {}
    for name in sorted(n for n in os.listdir(corpus) if n.endswith(".eml")):
        with open(os.path.join(corpus, name), "rb") as f:
            msg = email.message_from_binary_file(f, policy=email.policy.default)
        words = re.findall(r"\w{3,}", collapse(header_text(msg, "subject")))
        message_id = collapse(header_text(msg, "message-id")).strip("<>")
        if words:
            query = "subject:" + max(words, key=lambda w: (not w.isascii(), len(w)))
        elif message_id and " " not in message_id:
            query = "rfc822msgid:" + message_id
        else:
            query = "in:inbox"
        entry = {"query": query}
        names = [n for n in attachment_names(msg) if '"' not in n]
        if names:
            entry["attachment_query"] = f'has:attachment filename:"{names[0]}"'
        result[name] = entry
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "queries":
        sys.exit(queries(*sys.argv[2:4]))
    sys.exit(main(*sys.argv[2:6]))
