"""The Python fallback (agent_tools.fallback) against the emulator: the same answers as the Java tools, message by
message, on real-world mail and on the seeded mailbox; used by the clients when the tools cannot answer; held to
the caller's deadline; failures as error answers naming their cause.

The rule the comparisons hold: every field of every list page (emails, next_page_token, skipped, errors) and of
every get_email answer (body and body_html included, uncut) is equal, as JSON values, to the Java tools' answer.
No exception is made: the decoding (RFC 2047 words as Angus Mail decodes them, dates as HeaderDate, HTML as
HtmlText's rules) gives the same text on all of it. Only `backend` and `duration_ms` differ.
"""

import asyncio
import glob
import os
import shutil
import tempfile
import unittest

from support import ROOT, start_emulator, stop, tools_env

from agent_tools import AgentToolsClient, AsyncAgentToolsClient

try:
    import googleapiclient.discovery  # noqa: F401  (GmailFallback imports it when made)
    import google.oauth2.credentials  # noqa: F401
    from agent_tools.fallback import GmailFallback
    MISSING = None
except ImportError as e:  # the "fallback" extra is not installed
    MISSING = "the fallback extra is not installed (pip install './clients/python[fallback]'): %s" % e

CORPORA = os.path.join(ROOT, "target", "test-corpora")
HAND_MADE = os.path.join(ROOT, "src", "test", "resources", "realworld")
# no quota in the way: what is compared is the answers (the fallback's retries have a test of their own below)
FAST = ("--latency", "0ms", "--jitter", "0ms", "--quota", "10000000")
NO_SERVER = [os.path.join(tempfile.mkdtemp(prefix="agent-tools-py-none-"), "agent-tools"), "serve", "--stdio"]


def compare_everything(test, client, fallback, page_size=50, queries=()):
    """Pages through the inbox with both, compares each page, then every message's get_email; returns the count."""
    ids, token = [], None
    while True:
        params = {"max_results": page_size, **({"page_token": token} if token else {})}
        java = client.list_emails(**params)
        test.assertIsNotNone(java, client.last_error)
        python = fallback.list_emails(**params)
        test.assertIsNotNone(python, fallback.last_error)
        test.assertEqual("python", python["backend"])
        for j, p in zip(java["data"]["emails"], python["data"]["emails"]):
            test.assertEqual(j, p, "list_emails, email %s" % j["id"])
        test.assertEqual(java["data"], python["data"], "list_emails page after %s" % token)
        ids += [e["id"] for e in java["data"]["emails"]]
        token = java["data"].get("next_page_token")
        if not token:
            break
    for query in queries:
        java = client.search_emails(query, max_results=100)
        test.assertIsNotNone(java, client.last_error)
        test.assertTrue(java["data"]["emails"], "the query %r finds something" % query)
        test.assertEqual(java["data"], fallback.search_emails(query, max_results=100)["data"], "search_emails %r" % query)
    for message_id in ids:
        java = client.get_email(message_id, max_body_chars=10000000, include_html=True)
        test.assertIsNotNone(java, client.last_error)
        python = fallback.get_email(message_id, max_body_chars=10000000, include_html=True)
        test.assertIsNotNone(python, fallback.last_error)
        for field in sorted(set(java["data"]) | set(python["data"])):
            test.assertEqual(java["data"].get(field), python["data"].get(field), "get_email %s: %s" % (message_id, field))
    return len(ids)


@unittest.skipIf(MISSING, MISSING)
class SameAnswersTest(unittest.TestCase):
    def test_real_world_mail_is_answered_alike_message_by_message(self):
        corpora = [os.path.join(CORPORA, name) for name in ("cpython", "enmime")]
        for corpus in corpora:
            if not glob.glob(os.path.join(corpus, "*.eml")):
                self.skipTest("no real-world mail in %s: the build fetches it (scripts/build/fetch-test-corpora target/test-corpora)"
                              % os.path.relpath(corpus, ROOT))
        mailbox = tempfile.mkdtemp(prefix="agent-tools-py-mailbox-")
        self.addCleanup(shutil.rmtree, mailbox)
        files = 0
        for prefix, folder in (("cpython-", corpora[0]), ("enmime-", corpora[1]), ("ours-", HAND_MADE)):
            for path in sorted(glob.glob(os.path.join(folder, "*.eml"))):
                shutil.copyfile(path, os.path.join(mailbox, prefix + os.path.basename(path)))
                files += 1
        emulator, root = start_emulator("--mailbox", mailbox, *FAST)
        self.addCleanup(stop, emulator)
        client = AgentToolsClient(env=tools_env(root))
        self.addCleanup(client.close)
        compared = compare_everything(self, client, GmailFallback(access_token="python-token", root_url=root),
                                      queries=("has:attachment", "subject:dingus"))
        self.assertEqual(files, compared, "every file loaded is compared")

    def test_the_seeded_mailbox_is_answered_alike_message_by_message(self):
        # HTML mail, Japanese in ISO-2022-JP, forwards, large bodies, labels of the user's own
        emulator, root = start_emulator("--messages", "240", *FAST)
        self.addCleanup(stop, emulator)
        client = AgentToolsClient(env=tools_env(root))
        self.addCleanup(client.close)
        fallback = GmailFallback(access_token="python-token", root_url=root)
        self.assertGreaterEqual(compare_everything(self, client, fallback, page_size=100,
                                                   queries=("見積書", "has:attachment", "is:unread")), 100)
        for label in ("Work", "STARRED"):  # a user label's name, a system label
            self.assertEqual(client.list_emails(label=label, max_results=20)["data"],
                             fallback.list_emails(label=label, max_results=20)["data"], label)


# HTML bodies that put the HTML-to-text rules to work: lists, links of every kind, tables, entities, whitespace
# between inline elements, skipped elements, markup left open or closed out of order, a head left open.
HTML_CASES = [
    "<ul><li>one</li><li>two <b>bold</b></li></ul><ol><li>first<li>second</ol>",
    "<p>See <a href='https://example.com/a'>the report</a>, <a href='https://example.com/b'>https://example.com/b</a>"
    " and <a href='mailto:amy@example.com'>Amy</a>; <a href='#top'>top</a> <a href='cid:logo'>logo</a>"
    " <a href='javascript:void(0)'>js</a> <a href=' https://example.com/c '> padded </a></p>",
    "<table><tr><td>Name</td><td>Qty</td></tr><tr><td>Widget</td><td>3</td></tr></table>after",
    "<p>caf&eacute; &amp; cr&egrave;me &lt;tag&gt; &nbsp;x&nbsp;&nbsp;y &#x1F600; &copy 2026</p>",
    "<span>a</span> <span>b</span><span> c </span><i>d</i>e<br>f<br/>g<hr>h",
    "<html><head><title>Hidden title</title><style>p {color: red}</style><script>var x = '<p>';</script></head>"
    "<body><noscript>no</noscript><p>shown</p><template><p>not shown</p></template></body></html>",
    "<div>outer<div>inner</div>tail</div><p>one<p>two</p><blockquote>quoted</blockquote><pre>  pre   text  </pre>",
    "<p>left <b>open <i>nested</p> after</b> close</i> end",
    "<head><meta charset=utf-8>text after an open head<p>para</p>",
    "<h1>Title</h1><h2>Sub</h2><dl><dt>term</dt><dd>meaning</dd></dl><section>s</section><footer>f</footer>",
    "line one\n\n\n\nline two<br><br><br><br>line three <!-- a comment --> after <p>\u200bzero\u00adwidth</p>",
    "<a href='https://example.com/x'>first<a href='https://example.com/y'>second</a>",
    "</p>stray end tags</div></br>after br",
    "<p>\u3000ideographic\u3000space\u00a0and no-break</p>",
    "<TABLE><TR><TD>Upper</TD></TR></TABLE><P>case <A HREF='https://example.com/u?a=1&amp;b=2'>tags</A></P>",
    "<ul><li>outer<ul><li>inner</li></ul></li></ul><a href='https://example.com/d'><div>block in a link</div></a>",
    "<table>foster text<tr><td>cell</td></tr></table>",
    "<p>unclosed script follows</p><script>var y = 1; <p>never</p>",
    "<title>open title <b>x</b> text",
]


def html_mail(n, body):
    return ("From: Sender <s@example.com>\r\nTo: me@example.com\r\nSubject: html case %d\r\n"
            "Date: Mon, 1 Jun 2026 10:%02d:00 +0000\r\nMessage-ID: <html-%d@example.com>\r\nMIME-Version: 1.0\r\n"
            "Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n%s\r\n" % (n, n, n, body))


@unittest.skipIf(MISSING, MISSING)
class OneEmailsFailureTest(unittest.TestCase):
    """What a failed get of one listed message means, as the tools' Fetched.ofFailure says it (no server needed)."""

    def test_an_emails_own_failure_reads_as_the_tools_say_it_and_the_rest_fails_the_call(self):
        from agent_tools.fallback import Failure, _message_error
        exhausted = Failure("upstream", "gmail messages.get (3 of 10) failed with HTTP 503: Backend Error (812 ms)",
                            status=503, google_message="Backend Error", retryable=True)
        exhausted.attempts = 4
        self.assertEqual({"id": "a1", "code": "upstream",
                          "message": "Gmail answered HTTP 503 on all 4 attempts when asked for this message: Backend Error"},
                         _message_error("a1", exhausted))
        bad = Failure("invalid_argument", "x", status=400, google_message="Invalid id value")
        self.assertEqual("Gmail answered HTTP 400 when asked for this message: Invalid id value",
                         _message_error("a2", bad)["message"])
        for whole_call in (Failure("permission_denied", "403", status=403, google_message="Forbidden"),
                           Failure("rate_limited", "429", status=429, google_message="Too many", retryable=True),
                           Failure("upstream", "cannot reach Gmail")):  # no HTTP answer: says nothing of this email
            with self.assertRaises(Failure):
                _message_error("a3", whole_call)

    def test_a_header_in_an_encoding_that_refuses_it_is_kept_as_written(self):
        from agent_tools import _mail
        part = {"headers": [{"name": "Subject", "value": "=?idna?Q?abc?="}]}
        self.assertEqual("=?idna?Q?abc?=", _mail.header(part, "subject"))


class HtmlAsTextTest(unittest.TestCase):
    def test_html_bodies_read_as_the_tools_read_them(self):
        mailbox = tempfile.mkdtemp(prefix="agent-tools-py-html-")
        self.addCleanup(shutil.rmtree, mailbox)
        for n, body in enumerate(HTML_CASES):
            with open(os.path.join(mailbox, "case-%02d.eml" % n), "w", encoding="utf-8", newline="") as f:
                f.write(html_mail(n, body))
        emulator, root = start_emulator("--mailbox", mailbox, *FAST)
        self.addCleanup(stop, emulator)
        client = AgentToolsClient(env=tools_env(root))
        self.addCleanup(client.close)
        self.assertEqual(len(HTML_CASES), compare_everything(self, client, GmailFallback(access_token="t", root_url=root)))


@unittest.skipIf(MISSING, MISSING)
class FallingBackTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.emulator, cls.root = start_emulator(*FAST)
        cls.env = tools_env(cls.root)

    @classmethod
    def tearDownClass(cls):
        stop(cls.emulator)

    def fallback(self, **kwargs):
        return GmailFallback(access_token="python-token", root_url=kwargs.pop("root_url", self.root), **kwargs)

    def test_the_fallback_answers_when_the_tools_are_missing(self):
        tools = AgentToolsClient(env=self.env)
        self.addCleanup(tools.close)
        expected = tools.list_emails(max_results=5)
        client = AgentToolsClient(command=NO_SERVER, fallback=self.fallback())
        self.addCleanup(client.close)
        answer = client.list_emails(max_results=5)
        self.assertIsNotNone(answer, client.last_error)
        self.assertEqual("python", answer["backend"])
        self.assertEqual(expected["data"], answer["data"])
        self.assertGreater(answer["duration_ms"], 0)
        self.assertEqual("unavailable", client.last_error_code, "the tools' failure stays readable")

    def test_the_fallback_answers_when_gmail_fails_the_tools(self):
        # every failure a 503: of the default mix (503 three times in four) the last one met depends on how many
        # attempts a loaded machine fits in the deadline (seen: a 500 on the third)
        broken, broken_root = start_emulator("--fail-rate", "1", "--fail-status", "503=1", *FAST)
        self.addCleanup(stop, broken)
        client = AgentToolsClient(env=tools_env(broken_root), fallback=self.fallback())
        self.addCleanup(client.close)
        answer = client.search_emails("has:attachment", max_results=3, timeout_ms=3000)
        self.assertIsNotNone(answer, client.last_error)
        self.assertEqual("python", answer["backend"])
        self.assertEqual(3, len(answer["data"]["emails"]))
        # what the tools met stays readable: Gmail's 503, retried by the tools until their own deadline
        self.assertIn("HTTP 503", client.last_error)

    def test_an_error_the_caller_must_fix_is_not_run_again_in_python(self):
        calls = []

        class Counting:
            def handles(self, command):
                return True

            def answer(self, command, params, seconds):
                calls.append(command)
                return {"error": {"code": "internal", "message": "not expected"}}

        client = AgentToolsClient(env=self.env, fallback=Counting())
        self.addCleanup(client.close)
        self.assertIsNone(client.get_email("00000000000000ab"))
        self.assertIsNone(client.list_emails(max_results=0))
        self.assertEqual([], calls)
        self.assertEqual("invalid_argument", client.last_error_code)

    def test_the_fallback_keeps_to_what_is_left_of_the_deadline_and_says_why(self):
        slow, slow_root = start_emulator("--latency", "300ms", "--jitter", "0ms", "--handshake", "0ms")
        self.addCleanup(stop, slow)
        fallback = self.fallback(root_url=slow_root)
        answer = fallback.answer("gmail.list-emails", {"max_results": 10}, 1.0)
        self.assertEqual("deadline", answer["error"]["code"], answer)
        self.assertIn("deadline of 1000 ms", answer["error"]["message"])
        self.assertIn("gmail messages.get", answer["error"]["message"], "the step it was at")
        self.assertNotIn("Traceback", answer["error"]["message"])
        # through the client: a missing server leaves the whole timeout to the fallback, and no more
        client = AgentToolsClient(command=NO_SERVER, fallback=fallback, timeout=1.5)
        self.addCleanup(client.close)
        self.assertIsNone(client.list_emails(max_results=10))
        self.assertIn("python fallback: deadline", client.last_error)
        self.assertEqual("deadline", client.last_error_code)

    def test_failures_are_answers_naming_their_cause(self):
        fallback = self.fallback()
        missing = fallback.answer("gmail.get-email", {"message_id": "00000000000000ab"}, 10)
        self.assertEqual("not_found", missing["error"]["code"])
        self.assertIn("gmail messages.get failed with HTTP 404", missing["error"]["message"])
        self.assertEqual("invalid_argument", fallback.answer("gmail.get-email", {"message_id": "x/y"}, 10)["error"]["code"])
        self.assertIn("max_results must be 1..500, got 0",
                      fallback.answer("gmail.list-emails", {"max_results": 0}, 10)["error"]["message"])
        self.assertIn("label 'Nope' does not exist",
                      fallback.answer("gmail.list-emails", {"label": "Nope"}, 10)["error"]["message"])
        # as the tools name it: the tool's own params, not the call's settings (agent_name, timeout_ms) nor the credential
        self.assertEqual("gmail.list-emails: unknown param 'colour'; its params: cache, label, max_results, page_token, strategy",
                         fallback.answer("gmail.list-emails", {"colour": "red"}, 10)["error"]["message"])
        nowhere = self.fallback(root_url="http://127.0.0.1:9/").answer("gmail.list-emails", {}, 5)
        self.assertEqual("upstream", nowhere["error"]["code"])
        self.assertIn("cannot reach Gmail at http://127.0.0.1:9/", nowhere["error"]["message"])
        self.assertIsNone(fallback.get_email("00000000000000ab"))
        self.assertTrue(fallback.last_error.startswith("not_found: "), fallback.last_error)

    def test_a_refused_token_is_unauthenticated_and_never_shown(self):
        strict, strict_root = start_emulator("--token", "the-only-token", *FAST)
        self.addCleanup(stop, strict)
        answer = self.fallback(root_url=strict_root).answer("gmail.list-emails", {"access_token": "secret-wrong-token"}, 10)
        self.assertEqual("unauthenticated", answer["error"]["code"])
        self.assertNotIn("secret-wrong-token", str(answer))

    def test_rate_limits_are_retried_within_the_deadline(self):
        # 50 gets a second at most (a burst of 250 units, 5 a get): a sequential list of 100 meets the limit
        limited, limited_root = start_emulator("--latency", "0ms", "--jitter", "0ms", "--quota", "15000")
        self.addCleanup(stop, limited)
        answer = self.fallback(root_url=limited_root).answer("gmail.list-emails", {"max_results": 100}, 60)
        self.assertNotIn("errors", answer.get("data", answer), answer.get("data", {}).get("errors", answer))
        self.assertEqual(100, len(answer["data"]["emails"]))


@unittest.skipIf(MISSING, MISSING)
class AsyncFallingBackTest(unittest.IsolatedAsyncioTestCase):
    async def test_the_async_client_falls_back_too(self):
        emulator, root = await asyncio.to_thread(start_emulator, *FAST)
        self.addCleanup(stop, emulator)
        client = AsyncAgentToolsClient(command=NO_SERVER, fallback=GmailFallback(access_token="t", root_url=root))
        self.addAsyncCleanup(client.close)
        listed = await client.list_emails(max_results=2)
        self.assertIsNotNone(listed, client.last_error)
        self.assertEqual("python", listed["backend"])
        email = await client.get_email(listed["data"]["emails"][0]["id"])
        self.assertEqual(listed["data"]["emails"][0]["subject"], email["data"]["subject"])


if __name__ == "__main__":
    unittest.main()
