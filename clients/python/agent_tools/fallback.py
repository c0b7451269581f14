"""The Python fallback of the Gmail tools, as the article kept its original implementation: list_emails,
search_emails and get_email on google-api-python-client, one Gmail call after another (messages.list, then a
messages.get per email), answering in the tools' own JSON shape with `backend: "python"`.

    tools = AgentToolsClient(fallback=GmailFallback.from_environment())   # used when the tools cannot answer
    tools.list_emails(max_results=10)      # agent-tools' answer, or the fallback's within what is left of the timeout

It needs the "fallback" extra (pip install './clients/python[fallback]'). Gmail's discovery document comes with
google-api-python-client (static discovery), so nothing is fetched to build the client, and any root URL works
(the emulator's: `agent-tools emulator`). Every failure is an answer {"error": {"code", "message"}} whose message
names the Gmail call, the HTTP status and Google's words, never a stack trace or a token; the codes are the tools'
(invalid_argument, not_found, unauthenticated, permission_denied, rate_limited, upstream, deadline, internal).
"""

import os
import re
import socket
import threading
import time

from . import _mail

__all__ = ["GmailFallback", "COMMANDS"]

LIST, SEARCH, GET = "gmail.list-emails", "gmail.search-emails", "gmail.get-email"
COMMANDS = frozenset((LIST, SEARCH, GET))
# What the tools ask Gmail for (dev.agenttools.gmail.GmailService.LIST_FIELDS and SUMMARY_FIELDS): ids and the
# next page's token; of each listed email its headers, labels, snippet and the part tree's file names, no body data.
LIST_FIELDS = "messages(id,threadId),nextPageToken"
SUMMARY_FIELDS = ("id,threadId,labelIds,snippet,internalDate,payload(mimeType,filename,headers,"
                  "parts(mimeType,filename,parts(mimeType,filename,parts(mimeType,filename,parts(mimeType,filename)))))")
SYSTEM_LABELS = frozenset(("INBOX", "SPAM", "TRASH", "UNREAD", "STARRED", "IMPORTANT", "SENT", "DRAFT", "CHAT",
                           "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES",
                           "CATEGORY_FORUMS"))
DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT = 10, 500
DEFAULT_MAX_BODY_CHARS, MAX_BODY_LIMIT = 20000, 10000000
# params of the tools the fallback reads; the others the tools take are accepted and change nothing here
# (strategy and cache: the answer is the same whichever way it is fetched)
_PARAMS = {
    LIST: {"label", "max_results", "page_token", "strategy", "cache", "access_token", "agent_name", "timeout_ms"},
    SEARCH: {"query", "max_results", "page_token", "strategy", "cache", "access_token", "agent_name", "timeout_ms"},
    GET: {"message_id", "max_body_chars", "include_html", "access_token", "agent_name", "timeout_ms"},
}
# the call's settings and its credential: accepted by every tool, but not listed as a tool's params to a model
_SETTINGS = {"access_token", "agent_name", "timeout_ms"}
_GOOGLE_ROOT = "https://gmail.googleapis.com/"
# Retries of a request Gmail refused for its rate limits or failed (5xx), with pauses from BACKOFF seconds doubling
# up to BACKOFF_CAP (a user's quota refills each second), never past the caller's deadline.
# 4 attempts in all, as the tools' Retry.DEFAULT (an email's error says "on all 4 attempts" alike); shorter pauses
RETRIES, BACKOFF, BACKOFF_CAP = 3, 0.1, 1.6
# the credentials whose labels are remembered (5 minutes each), the least recently listed forgotten first
MAX_LABEL_CACHES = 1000


class Failure(Exception):
    """A failure the answer names: its tools' code and one line."""

    def __init__(self, code, message, status=None, google_message=None, retryable=False):
        super().__init__(message)
        self.code = code
        self.message = " ".join(message.split())[:500]
        self.status = status  # Gmail's HTTP status, when an answer came
        self.google_message = google_message  # what Gmail's answer said
        self.retryable = retryable
        self.attempts = 1


# What Gmail reports about one listed message that leaves the rest of the list standing (the tools' Fetched.PER_MESSAGE);
# anything else fails the whole call: sign-in and permission, quota spent after retries, the deadline
PER_MESSAGE = ("invalid_argument", "upstream", "internal")


def _message_error(message_id, failure):
    """What a failed get of listed message message_id means for the list, as the tools' Fetched.ofFailure says it:
    this email's error entry, or the failure raised again when it fails the whole call (one without an HTTP answer,
    Gmail unreachable after retries, says nothing about this message)."""
    if failure.status is None or failure.code not in PER_MESSAGE:
        raise failure
    tries = " on all %d attempts" % failure.attempts if failure.retryable else ""
    return {"id": message_id, "code": failure.code, "message": "Gmail answered HTTP %d%s when asked for this message: %s"
            % (failure.status, tries, failure.google_message or "no message")}


class _Clock:
    """What is left of the caller's deadline, given to each HTTP request as its timeout."""

    def __init__(self, seconds):
        self.started = time.monotonic()
        self.seconds = seconds
        self.step = "starting"

    def left(self):
        return self.seconds - (time.monotonic() - self.started)

    def elapsed_ms(self):
        return int((time.monotonic() - self.started) * 1000)

    def check(self, step):
        self.step = step
        if self.left() <= 0:
            raise self.spent()

    def spent(self):
        return Failure("deadline", "the python fallback's deadline of %d ms ran out after %d ms, at %s"
                       % (max(0, self.seconds * 1000), self.elapsed_ms(), self.step))


class GmailFallback:
    """The Python implementation of the Gmail tools; thread-safe (each call has its own HTTP connection)."""

    def __init__(self, access_token=None, root_url=None, credentials=None, max_body_chars=DEFAULT_MAX_BODY_CHARS):
        """
        access_token: an OAuth2 access token (a call's own access_token param wins); or
        credentials: google-auth credentials (refreshed by google-auth as it does)
        root_url: Gmail's root URL (default Google's; the emulator's for tests)
        max_body_chars: get_email's default cut of the body, as the tools' (20,000)
        """
        try:
            import googleapiclient.discovery  # noqa: F401  (the "fallback" extra)
        except ImportError as e:
            raise ImportError("GmailFallback needs google-api-python-client and google-auth: "
                              "pip install 'agent-tools[fallback]' (%s)" % e) from None
        self._token = access_token
        self._credentials = credentials
        self._root = (root_url or _GOOGLE_ROOT).rstrip("/") + "/"
        self._max_body_chars = max_body_chars
        self._service = None
        self._labels = {}  # token -> (labels, monotonic time listed)
        self._lock = threading.Lock()
        self.last_error = None

    @classmethod
    def from_environment(cls, env=None):
        """With the variables agent-tools reads: AGENT_TOOLS_GMAIL_ROOT_URL, AGENT_TOOLS_ACCESS_TOKEN."""
        env = os.environ if env is None else env
        return cls(access_token=env.get("AGENT_TOOLS_ACCESS_TOKEN") or None,
                   root_url=env.get("AGENT_TOOLS_GMAIL_ROOT_URL") or None)

    def handles(self, command):
        return command in COMMANDS

    # ---- the tools, with the clients' contract: the answer, or None with last_error ----------------------

    def list_emails(self, timeout=30.0, **params):
        return self._contract(LIST, params, timeout)

    def search_emails(self, query, timeout=30.0, **params):
        return self._contract(SEARCH, dict(params, query=query), timeout)

    def get_email(self, message_id, timeout=30.0, **params):
        return self._contract(GET, dict(params, message_id=message_id), timeout)

    def _contract(self, command, params, timeout):
        result = self.answer(command, params, timeout)
        if "error" in result:
            self.last_error = "%s: %s" % (result["error"]["code"], result["error"]["message"])
            return None
        return result

    def answer(self, command, params, seconds):
        """Runs one command within `seconds`: {"data", "backend": "python", "duration_ms"}, or
        {"error": {"code", "message"}, "backend": "python"}. Never raises."""
        clock = _Clock(seconds)
        try:
            if command not in COMMANDS:
                raise Failure("invalid_argument", "the python fallback answers %s, not %s" % (", ".join(sorted(COMMANDS)), command))
            unknown = sorted(set(params) - _PARAMS[command])
            if unknown:
                # as the tools answer: the tool's own params, not the call's settings nor the credential
                raise Failure("invalid_argument", "%s: unknown param '%s'; its params: %s"
                              % (command, unknown[0], ", ".join(sorted(_PARAMS[command] - _SETTINGS))))
            clock.check("the start (no time was left for the fallback)")
            session = self._session(params.get("access_token"))
            try:
                data = self._get(session, params, clock) if command == GET else self._list(session, command, params, clock)
            finally:
                session.close()
            return {"data": data, "backend": "python", "duration_ms": round((time.monotonic() - clock.started) * 1000, 3)}
        except Failure as f:
            return {"error": {"code": f.code, "message": f.message}, "backend": "python"}
        except Exception as e:  # never a stack trace to the model: what failed, in one line
            return {"error": {"code": "internal", "message": "the python fallback failed at %s: %s: %s"
                              % (clock.step, type(e).__name__, " ".join(str(e).split())[:300])}, "backend": "python"}

    # ---- the calls ---------------------------------------------------------------------------------------

    def _list(self, session, command, params, clock):
        max_results = _integer(params, "max_results", 1, MAX_RESULTS_LIMIT, DEFAULT_MAX_RESULTS)
        page_token = _string(params, "page_token")
        query, label = None, None
        if command == SEARCH:
            query = _string(params, "query")
            if not query:
                raise Failure("invalid_argument", "query is required (a Gmail search, e.g. from:amy)")
        else:
            label = self._label_id(session, _string(params, "label") or "INBOX", clock)
        listed = session.run(session.gmail.users().messages().list(
            userId="me", labelIds=[label] if label else None, q=query, maxResults=max_results, pageToken=page_token,
            fields=LIST_FIELDS), "gmail messages.list", clock)
        refs = (listed.get("messages") or [])[:max_results]
        emails, errors, skipped = [], [], 0
        # one after another, as the article's Python did (the tools fetch these at once)
        for n, ref in enumerate(refs, 1):
            operation = "gmail messages.get (%d of %d)" % (n, len(refs))
            try:
                message = session.run(session.gmail.users().messages().get(
                    userId="me", id=ref["id"], format="full", fields=SUMMARY_FIELDS), operation, clock)
            except Failure as f:
                if f.code == "not_found":
                    skipped += 1  # deleted between the list and the get
                    continue
                error = _message_error(ref["id"], f)  # raises when it fails the whole call
                emails.append(_mail.unfetched(ref["id"], ref.get("threadId")))
                errors.append(error)
                continue
            try:
                emails.append(_mail.summary(message))
            except Exception as e:  # real-world mail is stranger than any decoder: this email, not the list
                emails.append(_mail.unfetched(ref["id"], ref.get("threadId")))
                errors.append(_undecodable(ref["id"], e))
        data = {"emails": emails}
        if listed.get("nextPageToken"):
            data["next_page_token"] = listed["nextPageToken"]
        data["skipped"] = skipped
        if errors:
            data["errors"] = errors
        return data

    def _get(self, session, params, clock):
        message_id = _string(params, "message_id")
        if message_id is None or not re.fullmatch(r"[0-9a-fA-F]{1,16}", message_id):
            raise Failure("invalid_argument", "message_id must be a Gmail message id (1 to 16 hex digits), got \"%s\""
                          % (message_id if message_id is None or len(message_id) <= 40 else message_id[:40] + "..."))
        max_body = _integer(params, "max_body_chars", 1, MAX_BODY_LIMIT, self._max_body_chars)
        include_html = params.get("include_html", False)
        if not isinstance(include_html, bool):
            raise Failure("invalid_argument", "include_html must be true or false, got %r" % (include_html,))
        message = session.run(session.gmail.users().messages().get(userId="me", id=message_id, format="full"),
                              "gmail messages.get", clock)
        try:
            return _mail.detail(message, max_body, include_html)
        except Exception as e:
            error = _undecodable(message_id, e)
            return {"id": message_id, "thread_id": message.get("threadId"), "subject": _mail.NO_SUBJECT, "errors": [error]}

    def _label_id(self, session, label, clock):
        """A label id for what the caller wrote: a system label, a user label's id, or its name (any case)."""
        if label.upper() in SYSTEM_LABELS:
            return label.upper()
        with self._lock:
            cached = self._labels.get(session.key)
        if cached is None or time.monotonic() - cached[1] > 300:
            listed = session.run(session.gmail.users().labels().list(userId="me"), "gmail labels.list", clock)
            cached = (listed.get("labels") or [], time.monotonic())
            with self._lock:
                self._labels.pop(session.key, None)
                self._labels[session.key] = cached  # the newest last
                while len(self._labels) > MAX_LABEL_CACHES:  # bounded: one entry per credential seen
                    del self._labels[next(iter(self._labels))]
        for known in cached[0]:
            if known.get("id") == label or (known.get("name") or "").lower() == label.lower():
                return known["id"]
        raise Failure("invalid_argument", "label '%s' does not exist; labels: %s"
                      % (label, ", ".join(sorted(k.get("name") or "" for k in cached[0]))))

    # ---- the Google client -------------------------------------------------------------------------------

    def _session(self, access_token):
        import google.oauth2.credentials
        token = access_token or self._token
        credentials = google.oauth2.credentials.Credentials(token) if token else self._credentials
        if credentials is None:
            raise Failure("unauthenticated", "the python fallback has no credential: give GmailFallback an access_token "
                          "or credentials, or the call an access_token (AGENT_TOOLS_ACCESS_TOKEN)")
        with self._lock:
            if self._service is None:
                import googleapiclient.discovery
                # built once from the discovery document the library ships; each call brings its own connection
                self._service = googleapiclient.discovery.build(
                    "gmail", "v1", credentials=credentials, static_discovery=True, cache_discovery=False,
                    client_options={"api_endpoint": self._root})
            service = self._service
        return _Session(service, credentials, token or id(credentials), self._root)


class _Session:
    """One call's connection to Gmail: its credential and an HTTP client whose timeout follows the deadline."""

    def __init__(self, gmail, credentials, key, root):
        import google_auth_httplib2
        import httplib2
        self.gmail = gmail
        self.key = key
        self.root = root
        self._inner = httplib2.Http()
        self._http = google_auth_httplib2.AuthorizedHttp(credentials, http=self._inner)

    def close(self):
        """Closes the call's connections (one client a call: nothing is left open between calls)."""
        for connection in list(self._inner.connections.values()):
            try:
                connection.close()
            except OSError:
                pass  # closing: nothing is pending

    def run(self, request, operation, clock):
        """Executes one request within what is left of the deadline, retrying what Gmail asks to retry (rate
        limits, 5xx: the Java tools retry them too) with a doubling pause that never passes the deadline."""
        for attempt in range(1, RETRIES + 2):
            try:
                return self._once(request, operation, clock)
            except Failure as f:
                f.attempts = attempt
                pause = min(BACKOFF_CAP, BACKOFF * (1 << (attempt - 1)))
                if f.code not in ("rate_limited", "upstream") or attempt > RETRIES or clock.left() <= pause:
                    if attempt > 1:
                        f.message += " (attempt %d)" % attempt
                    raise
                time.sleep(pause)

    def _once(self, request, operation, clock):
        import googleapiclient.errors
        import google.auth.exceptions
        import httplib2
        clock.check(operation)
        # httplib2 takes one timeout per Http object, read when it opens a connection; a kept connection's socket
        # keeps the one it had, so both are set to what is left before each request
        self._inner.timeout = clock.left()
        for connection in self._inner.connections.values():
            if getattr(connection, "sock", None) is not None:
                connection.sock.settimeout(clock.left())
        try:
            return request.execute(http=self._http, num_retries=0)
        except googleapiclient.errors.HttpError as e:
            raise _translate(e, operation, clock) from None
        except (socket.timeout, TimeoutError):
            raise clock.spent() from None
        except google.auth.exceptions.GoogleAuthError as e:
            raise Failure("unauthenticated", "%s: the credential could not be used (%s: %s); sign in again"
                          % (operation, type(e).__name__, e)) from None
        except (OSError, httplib2.HttpLib2Error) as e:
            raise Failure("upstream", "%s failed: cannot reach Gmail at %s (%s: %s)"
                          % (operation, self.root, type(e).__name__, e)) from None


def _translate(error, operation, clock):
    """Google's HTTP error as the tools translate it (dev.agenttools.google.GoogleErrors): the code by status."""
    status = error.resp.status
    reason = error._get_reason() if hasattr(error, "_get_reason") else str(error)
    reasons = {d.get("reason") for d in (error.error_details or []) if isinstance(d, dict)} if isinstance(
        getattr(error, "error_details", None), list) else set()
    if status == 400:
        code = "invalid_argument"
    elif status == 401:
        code = "unauthenticated"
    elif status == 403:
        code = "rate_limited" if reasons & {"rateLimitExceeded", "userRateLimitExceeded"} else "permission_denied"
    elif status == 404:
        code = "not_found"
    elif status == 429:
        code = "rate_limited"
    else:
        code = "upstream" if status >= 500 else "internal"
    retryable = status == 429 or status >= 500 or code == "rate_limited"
    return Failure(code, "%s failed with HTTP %d: %s (%d ms)" % (operation, status, reason, clock.elapsed_ms()),
                   status=status, google_message=reason, retryable=retryable)


def _undecodable(message_id, e):
    return {"id": message_id, "code": "internal",
            "message": " ".join(("the message was fetched but could not be decoded (%s%s); only what could be read is shown"
                                 % (type(e).__name__, ": %s" % e if str(e) else "")).split())[:300]}


def _integer(params, name, low, high, default):
    value = params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Failure("invalid_argument", "%s must be %d..%d, got %r" % (name, low, high, value))
    return value


def _string(params, name):
    value = params.get(name)
    if value is not None and not isinstance(value, str):
        raise Failure("invalid_argument", "%s must be a string, got %r" % (name, value))
    return value
