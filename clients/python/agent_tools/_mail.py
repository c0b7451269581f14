"""Gmail's Message resource as the tools' JSON, the Python twin of the Java decoder (dev.agenttools.gmail:
MessageDecoder, HeaderDate, HtmlText, Salvage), so that the fallback answers in the same shape with the same
values. Standard library only. tests/test_fallback.py compares the two on real-world mail."""

import base64
import binascii
import codecs
import datetime
import email.message
import email.utils
import html
import html.parser
import quopri
import re

NO_SUBJECT = "(no subject)"
FORWARDED = "---------- Forwarded message ----------"
_FORWARDED_HEADERS = ("From", "Date", "Subject", "To", "Cc")

# Java's Character.isWhitespace, which String.strip() and isBlank() use: Unicode space separators except the
# no-break ones, line and paragraph separators, and the ASCII controls \t \n \x0b \f \r \x1c-\x1f. Python's own
# str.strip() also strips the no-break spaces and \x85, which the Java side keeps.
_JAVA_WS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200a\u2028\u2029\u205f\u3000"


def jstrip(text):
    return text.strip(_JAVA_WS)


def jblank(text):
    return jstrip(text) == ""


# ---- headers ---------------------------------------------------------------------------------------------

def header(part, name):
    """A header's value with encoded words still in it decoded (Gmail decodes most; some senders double-encode)."""
    if not part:
        return None
    for h in part.get("headers") or ():
        if (h.get("name") or "").lower() == name.lower():
            value = h.get("value") or ""
            if "=?" in value:
                try:
                    value = decode_text(value)
                except (LookupError, UnicodeError):
                    pass  # a charset or encoding nobody knows (or one that refuses the text): keep it as sent
            return value
    return None


class _NotEncoded(Exception):
    pass


def decode_text(value):
    """RFC 2047 encoded words decoded as Angus Mail's MimeUtility.decodeText does (strict mode, its default), which
    the Java tools use: only whitespace-delimited words, the whitespace between two encoded words dropped, all other
    whitespace kept as sent (email.header joins decoded chunks with one space instead, and finds words anywhere).
    Raises LookupError for an unknown charset or encoding, as decodeText throws, and the value is then kept whole."""
    out, space, previous_encoded = [], "", False
    for token in re.split(r"([ \t\r\n])", value):
        if not token:
            continue
        if token in " \t\r\n":
            space += token
            continue
        try:
            word = _decode_word(token)
            if not previous_encoded and space:
                out.append(space)
            previous_encoded = True
        except _NotEncoded:
            word = token
            if space:
                out.append(space)
            previous_encoded = False
        out.append(word)
        space = ""
    out.append(space)
    return "".join(out)


def _decode_word(word):
    """One =?charset?B|Q?text?= word (anything after its ?= kept as it is), as MimeUtility.decodeWord."""
    if not word.startswith("=?"):
        raise _NotEncoded()
    end_charset = word.find("?", 2)
    if end_charset < 0:
        raise _NotEncoded()
    charset = word[2:end_charset].split("*", 1)[0]  # RFC 2231's language is dropped
    end_encoding = word.find("?", end_charset + 1)
    if end_encoding < 0:
        raise _NotEncoded()
    encoding = word[end_charset + 1:end_encoding]
    end_text = word.find("?=", end_encoding + 1)
    if end_text < 0:
        raise _NotEncoded()
    text = word[end_encoding + 1:end_text]
    codec = codecs.lookup(charset).name  # LookupError: keep the whole value
    if encoding.upper() == "B":
        try:
            raw = binascii.a2b_base64(text + "=" * (-len(text) % 4))
        except binascii.Error:
            raise _NotEncoded() from None
    elif encoding.upper() == "Q":
        raw = quopri.decodestring(text.encode("ascii", "replace"), header=True)
    else:
        raise LookupError("unknown encoding " + encoding)
    return raw.decode(codec, "replace") + word[end_text + 2:]


# ---- dates (HeaderDate) ----------------------------------------------------------------------------------

_DATE = re.compile(
    r"^\s*(?:[A-Za-z]{2,9}\s*,?\s*)?(\d{1,2})[\s-]+([A-Za-z]{3,9})\.?[\s-]+(\d{2,4})\s+"
    r"(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?(?:\.\d+)?\s*([+-]\d{4}|[A-Za-z]{1,5})?(?:\s.*)?$", re.ASCII | re.DOTALL)
_MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_ZONES = {"UT": 0, "GMT": 0, "UTC": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
          "PST": -8, "PDT": -7}


def parse_date(value):
    """An RFC 5322 Date header as an aware datetime with its own offset, or None when it is no possible date
    (an hour 59, a 31 February): strict about the calendar, lenient about the form, as HeaderDate."""
    if value is None:
        return None
    m = _DATE.match(value)
    if not m:
        return None
    month = _MONTHS.get(m.group(2)[:3].lower())
    if month is None:
        return None
    year = int(m.group(3))
    if len(m.group(3)) == 2:
        year += 2000 if year < 50 else 1900
    elif len(m.group(3)) == 3:
        year += 1900
    zone = m.group(7)
    try:
        if zone is None:
            offset = datetime.timedelta(0)
        elif zone[0] in "+-":
            hours, minutes = int(zone[1:3]), int(zone[3:5])
            if hours > 18 or minutes > 59:
                return None
            offset = (-1 if zone[0] == "-" else 1) * datetime.timedelta(hours=hours, minutes=minutes)
        else:
            offset = datetime.timedelta(hours=_ZONES.get(zone.upper(), 0))
        return datetime.datetime(year, month, int(m.group(1)), int(m.group(4)), int(m.group(5)),
                                 int(m.group(6) or 0), tzinfo=datetime.timezone(offset))
    except ValueError:
        return None


def rfc3339(moment):
    """As Java's ISO_OFFSET_DATE_TIME writes it: seconds always, a fraction only when there is one (trailing
    zeros dropped), Z for UTC."""
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += ("." + "%06d" % moment.microsecond).rstrip("0")
    offset = moment.utcoffset()
    if not offset:
        return text + "Z"
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return text + "%s%02d:%02d" % (sign, abs(minutes) // 60, abs(minutes) % 60)


def _date(payload, message):
    parsed = parse_date(header(payload, "Date"))
    if parsed is not None:
        return rfc3339(parsed), None
    internal = int(message.get("internalDate") or 0)
    arrival = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(milliseconds=internal)
    return rfc3339(arrival), "arrival"


# ---- text parts ------------------------------------------------------------------------------------------

def _declared_charset(part):
    content_type = header(part, "Content-Type")
    if content_type:
        holder = email.message.Message()
        holder["Content-Type"] = content_type
        name = holder.get_param("charset")
        if isinstance(name, tuple):  # RFC 2231
            name = email.utils.collapse_rfc2231_value(name)
        if name:
            try:
                return codecs.lookup(name.strip()).name
            except LookupError:
                pass
    return "latin-1"


def text(part):
    """A text part's content: valid UTF-8 as UTF-8 (Gmail hands text out so), anything else in the declared charset."""
    data = part["body"]["data"].replace("=", "").replace("+", "-").replace("/", "_")
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode(_declared_charset(part), "replace")


def _first_inline(part, mime_type):
    if not part:
        return None
    if (part.get("mimeType") or "").lower() == mime_type and (part.get("body") or {}).get("data") is not None:
        return part
    if part.get("parts") and (part.get("mimeType") or "").lower() != "message/rfc822":
        for child in part["parts"]:
            found = _first_inline(child, mime_type)
            if found is not None:
                return found
    return None


def _own_body(root):
    plain = _first_inline(root, "text/plain")
    if plain is not None:
        return text(plain)
    markup = _first_inline(root, "text/html")
    return "" if markup is None else html_to_text(text(markup))


def _collect_forwarded(part, out):
    for child in part.get("parts") or ():
        if (child.get("mimeType") or "").lower() == "message/rfc822":
            if child.get("parts"):
                out.append(child["parts"][0])
        else:
            _collect_forwarded(child, out)


def _with_forwarded(payload, body):
    forwarded = []
    _collect_forwarded(payload, forwarded)
    if not forwarded:
        return body
    out = jstrip(body)
    for inner in forwarded:
        if out:
            out += "\n\n"
        out += FORWARDED
        for name in _FORWARDED_HEADERS:
            value = header(inner, name)
            if value is not None and not jblank(value):
                out += "\n%s: %s" % (name, re.sub(r"\s+", " ", jstrip(value), flags=re.ASCII))
        out += "\n\n" + jstrip(_own_body(inner))
    return out


def _has_attachments(part):
    if not part:
        return False
    if part.get("filename"):
        return True
    return any(_has_attachments(p) for p in part.get("parts") or ())


def _collect_attachments(part, out):
    if not part:
        return
    if part.get("filename"):
        body = part.get("body") or {}
        attachment = {"filename": part["filename"], "mime_type": part.get("mimeType"), "size": int(body.get("size") or 0)}
        if body.get("attachmentId") is not None:
            attachment["attachment_id"] = body["attachmentId"]
        if attachment["mime_type"] is None:
            del attachment["mime_type"]
        out.append(attachment)
    for child in part.get("parts") or ():
        _collect_attachments(child, out)


def _utf16_cut(body, limit):
    """Java's String.length() and substring count UTF-16 units; so does this (a pair cut in two loses its half)."""
    units = body.encode("utf-16-le", "surrogatepass")
    if len(units) // 2 <= limit:
        return body, False
    return units[:2 * limit].decode("utf-16-le", "ignore"), True


# ---- the answers ------------------------------------------------------------------------------------------

def _common(message):
    payload = message.get("payload")
    labels = message.get("labelIds") or []
    date, source = _date(payload, message)
    subject = header(payload, "Subject")
    out = {"id": message.get("id"), "thread_id": message.get("threadId"),
           "subject": NO_SUBJECT if subject is None or jblank(subject) else subject,
           "from": header(payload, "From"), "to": header(payload, "To")}
    return out, payload, labels, date, source


def summary(message):
    """One email of a list answer (EmailSummary)."""
    out, payload, labels, date, source = _common(message)
    out.update({"date": date, "date_source": source, "date_raw": header(payload, "Date"),
                "snippet": html.unescape(message.get("snippet") or ""), "label_ids": labels,
                "unread": "UNREAD" in labels, "has_attachments": _has_attachments(payload)})
    return _without_nulls(out)


def detail(message, max_body_chars, include_html):
    """get_email's answer (EmailDetail)."""
    out, payload, labels, date, source = _common(message)
    markup = _first_inline(payload, "text/html")
    body, truncated = _utf16_cut(_with_forwarded(payload, _own_body(payload)), max_body_chars)
    attachments = []
    _collect_attachments(payload, attachments)
    out.update({"cc": header(payload, "Cc"), "date": date, "date_source": source, "date_raw": header(payload, "Date"),
                "snippet": html.unescape(message.get("snippet") or ""), "label_ids": labels,
                "unread": "UNREAD" in labels, "has_attachments": bool(attachments), "body": body,
                "body_html": text(markup) if include_html and markup is not None else None,
                "attachments": attachments, "truncated": truncated})
    return _without_nulls(out)


def unfetched(message_id, thread_id):
    """An email of a list that could not be fetched: its ids, and the subject every summary has."""
    return _without_nulls({"id": message_id, "thread_id": thread_id, "subject": NO_SUBJECT})


def _without_nulls(fields):
    return {k: v for k, v in fields.items() if v is not None}


# ---- HTML as text (HtmlText) ------------------------------------------------------------------------------

_BLOCKS = frozenset(("p", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr", "table", "blockquote", "pre",
                     "ul", "ol", "section", "article", "header", "footer", "hr", "dt", "dd"))
_SKIPPED = frozenset(("script", "style", "head", "noscript", "template", "title"))
# elements without content or end tag in HTML (an end tag of one is ignored; </br> is a <br>, as browsers read it)
_VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                   "track", "wbr"))
# what HTML keeps in a head; any other element ends a head left open
_IN_HEAD = frozenset(("base", "basefont", "bgsound", "link", "meta", "title", "noscript", "noframes", "style",
                      "script", "template", "head"))
# jsoup's whitespace when it normalises a text node: space, \t, \n, \f, \r and the no-break space; zero-width
# space and soft hyphen are dropped
_JSOUP_WS = re.compile("[ \t\n\f\r\u00a0]+")
_INVISIBLE = re.compile("[\u200b\u00ad]")


def _normalise(text):
    return _JSOUP_WS.sub(" ", _INVISIBLE.sub("", text))


class _HtmlText(html.parser.HTMLParser):
    """The Java visitor's rules over the standard library's tokenizer: where jsoup calls head() and tail() on
    the parsed tree, this calls them on start and end tags. Python has no HTML5 tree builder in its standard
    library (html5lib would be a dependency the fallback does not otherwise need), so mis-nested markup that
    jsoup's tree builder repairs may break lines differently; tests/test_fallback.py states the rule it holds."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out = []
        self.skipping = []  # the skipped elements open, innermost last
        self.links = []  # the <a> elements open: [href, text parts]
        self.pending = []  # text since the last tag: one jsoup text node

    # the output, as a list of strings, with the Java side's look at its last character
    def _last(self):
        for chunk in reversed(self.out):
            if chunk:
                return chunk[-1]
        return ""

    def _newline(self):
        last = self._last()
        if last and last != "\n":
            self.out.append("\n")

    def _flush_text(self):
        if not self.pending:
            return
        raw, self.pending = "".join(self.pending), []
        if self.skipping == ["head"] and not jblank(raw):
            self.skipping.clear()  # text cannot be in a head: HTML ends the head where it starts
        if self.skipping:
            return
        for link in self.links:
            link[1].append(raw)
        node = _normalise(raw)
        last = self._last()
        if jblank(node):
            if node and last and last not in _JAVA_WS:
                self.out.append(" ")
        else:
            if last and last not in _JAVA_WS and node[0] in _JAVA_WS:
                self.out.append(" ")
            self.out.append(jstrip(node))
            if node[-1] in _JAVA_WS:
                self.out.append(" ")

    def _head(self, tag, attrs):
        if tag in _SKIPPED:
            self.skipping.append(tag)
        elif not self.skipping:
            if tag == "a":
                if self.links:  # HTML closes an open link when another starts
                    self._tail("a")
                self.links.append([dict(attrs).get("href") or "", []])
            if tag in _BLOCKS:
                self._newline()
                if tag == "li":
                    self.out.append("- ")

    def _tail(self, tag):
        if tag in _SKIPPED:
            if tag in self.skipping:
                while self.skipping.pop() != tag:
                    pass
            return
        if self.skipping:
            return
        if tag == "a":
            if not self.links:
                return
            href, parts = self.links.pop()
            href, label = jstrip(href), jstrip(_normalise("".join(parts)))
            if href and not href.startswith(("#", "cid:", "javascript:")) and href != label:
                if self._last() and self._last() != " ":
                    self.out.append(" ")
                self.out.append("(%s) " % (href[7:] if href.startswith("mailto:") else href))
        elif tag in _BLOCKS:
            self._newline()

    def handle_starttag(self, tag, attrs):
        self._flush_text()
        if self.skipping == ["head"] and tag not in _IN_HEAD:
            self.skipping.clear()  # a head left open ends where body content starts, as HTML parses it
        self._head(tag, attrs)
        if tag in _VOID:
            self._tail(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self._flush_text()
            self._tail(tag)

    def handle_endtag(self, tag):
        self._flush_text()
        if tag == "br":
            self._head("br", [])
            self._tail("br")
        elif tag not in _VOID:
            self._tail(tag)

    def handle_data(self, data):
        self.pending.append(data)

    def handle_comment(self, data):
        self._flush_text()

    def close(self):
        super().close()
        self._flush_text()
        while self.links:
            self._tail("a")


def html_to_text(markup):
    """HTML mail as readable text: paragraphs and line breaks kept, scripts and styles dropped, links as
    `text (url)`; each line trimmed, at most one blank line in a row (HtmlText.toText)."""
    parser = _HtmlText()
    parser.feed(markup)
    parser.close()
    lines, blank, out = "".join(parser.out).split("\n"), 0, []
    for line in lines:
        line = jstrip(line)
        if not line:
            blank += 1
            continue
        if out:
            out.append("\n\n" if blank else "\n")
        blank = 0
        out.append(line)
    return "".join(out)
