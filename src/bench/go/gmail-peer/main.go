// Command gmail-peer is the benchmark's Go peer: the design of the article agent-tools was written against (the
// official Go Gmail client, google.golang.org/api/gmail/v1; messages.list, then one goroutine per message for its
// messages.get, waited for with a sync.WaitGroup), timed in the same run as the agent-tools rows so that a row is
// compared with Go on the same machine, server and minute.
//
//	gmail-peer --root URL --token T [--ca-cert PEM] --mode list|get [--n 10] [--ids id1,id2] [--warmup 1] [--runs 50]
//
// The token may come from the environment instead, GMAIL_PEER_TOKEN (what the benchmark does: a process's arguments
// are readable by every user of the machine, its environment is not).
//
// It prints ONE JSON line on stdout:
//
//	{"mode":"list","n":10,"runs_ms":[...],"errors":0,"first_error":"","messages":10}
//
// runs_ms holds the runs that succeeded, each timed with Go's monotonic clock; errors counts the runs that failed
// (a list fails when its list or any of its gets fails, as the article's production version returns the first
// error); first_error is the first failure's message; messages is how many ids the last list returned.
//
// Exit status: 0 when every run succeeded; 1 when some run failed (the JSON line is still printed, and the first
// error goes to stderr as one line); 2 for bad flags or a set-up that cannot start (one line on stderr, no JSON).
// The token never appears in the output: any error text containing it has it replaced.
//
// What it asks, and why (kept to the article, 「Gmail ツールの N+1 を Go の並列処理で 1659ms→310ms に」):
//   - list: messages.list(userId "me", labelIds [label, INBOX by default], maxResults n), as its list_emails; then
//     per message messages.get(format "metadata", metadataHeaders Subject, From, Date), its Go code verbatim, with
//     the headers read into an Email as it does.
//   - get: messages.get(format "full"), then the body decoded and its HTML tags removed: the article's get_email is
//     "one API call + decoding the body and removing HTML", which needs the whole message.
//   - fields: the article's calls set none (its Get chain is printed whole: Format, MetadataHeaders, Context, Do),
//     so by default none is sent and the server answers whole. --list-fields and --get-fields send a mask (the
//     benchmark can pass the masks the agent-tools tools use, GmailTools.LIST_FIELD_MASKS) to compare the same
//     server work instead of the article's exact calls.
//
// Transport: one gmail.Service for the whole process, over Go's default transport (a clone of
// http.DefaultTransport: HTTP/2 by ALPN over TLS, HTTP/1.1 over cleartext, as Go speaks by default; at most 2 idle
// connections kept per host, Go's default, which the article's binary also had), with the bearer token from an
// oauth2 static token source. --ca-cert adds one PEM certificate (the emulator's self-signed one) to the system's.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

type settings struct {
	root, token, caCert, mode, label string
	n, warmup, runs                  int
	ids                              []string
	listFields, getFields            string
	timeout                          time.Duration
}

type result struct {
	Mode       string    `json:"mode"`
	N          int       `json:"n"`
	RunsMs     []float64 `json:"runs_ms"`
	Errors     int       `json:"errors"`
	FirstError string    `json:"first_error"`
	Messages   int       `json:"messages"`
}

// Email is what the article's list_emails makes of each message.
type Email struct {
	ID, Subject, From, Date string
}

func main() {
	s, err := parse(os.Args[1:])
	if err != nil {
		fail(2, err.Error())
	}
	svc, err := service(s)
	if err != nil {
		fail(2, redact(err.Error(), s.token))
	}
	out := run(svc, s)
	line := json.NewEncoder(os.Stdout)
	line.SetEscapeHTML(false) // "<token>" as written
	if err := line.Encode(out); err != nil {
		fail(2, "writing the result: "+err.Error())
	}
	if out.Errors > 0 {
		fmt.Fprintln(os.Stderr, "gmail-peer: "+oneLine(out.FirstError))
		os.Exit(1)
	}
}

func fail(status int, message string) {
	fmt.Fprintln(os.Stderr, "gmail-peer: "+oneLine(message))
	os.Exit(status)
}

func parse(args []string) (settings, error) {
	var s settings
	var ids string
	f := flag.NewFlagSet("gmail-peer", flag.ContinueOnError)
	f.SetOutput(io.Discard) // the one line on stderr is ours
	f.StringVar(&s.root, "root", "", "root URL of the Gmail API (e.g. http://127.0.0.1:8080/)")
	f.StringVar(&s.token, "token", os.Getenv("GMAIL_PEER_TOKEN"), "bearer token (default: $GMAIL_PEER_TOKEN)")
	f.StringVar(&s.caCert, "ca-cert", "", "a PEM certificate to trust besides the system's")
	f.StringVar(&s.mode, "mode", "", "list or get")
	f.StringVar(&s.label, "label", "INBOX", "the label listed")
	f.IntVar(&s.n, "n", 10, "maxResults of the list")
	f.StringVar(&ids, "ids", "", "ids to get, round-robin (get mode; default: the first n listed, untimed)")
	f.IntVar(&s.warmup, "warmup", 1, "untimed runs first")
	f.IntVar(&s.runs, "runs", 50, "timed runs")
	f.StringVar(&s.listFields, "list-fields", "", "a fields mask for messages.list (default: none, as the article)")
	f.StringVar(&s.getFields, "get-fields", "", "a fields mask for each messages.get (default: none, as the article)")
	f.DurationVar(&s.timeout, "timeout", 60*time.Second, "the most one run may take")
	if err := f.Parse(args); err != nil {
		return s, fmt.Errorf("%v (usage: --root URL --token T [--ca-cert PEM] --mode list|get [--n 10] [--ids a,b] [--warmup 1] [--runs 50])", err)
	}
	switch {
	case f.NArg() > 0:
		return s, fmt.Errorf("unexpected argument %q", f.Arg(0))
	case !strings.HasPrefix(s.root, "http://") && !strings.HasPrefix(s.root, "https://"):
		return s, fmt.Errorf("--root must be an http:// or https:// URL, got %q", s.root)
	case s.token == "":
		return s, errors.New("--token (or GMAIL_PEER_TOKEN) must not be empty")
	case s.mode != "list" && s.mode != "get":
		return s, fmt.Errorf("--mode must be list or get, got %q", s.mode)
	case s.n < 1 || s.n > 500:
		return s, fmt.Errorf("--n must be 1..500, got %d", s.n)
	case s.warmup < 0:
		return s, fmt.Errorf("--warmup must be 0 or more, got %d", s.warmup)
	case s.runs < 1:
		return s, fmt.Errorf("--runs must be 1 or more, got %d", s.runs)
	case s.timeout <= 0:
		return s, fmt.Errorf("--timeout must be positive, got %v", s.timeout)
	}
	if !strings.HasSuffix(s.root, "/") {
		s.root += "/"
	}
	for _, id := range strings.Split(ids, ",") {
		if id = strings.TrimSpace(id); id != "" {
			s.ids = append(s.ids, id)
		}
	}
	return s, nil
}

// service builds the one gmail.Service of the process. The generated client's base path is the root and its
// paths start with "gmail/v1/", so the endpoint is the root URL itself.
func service(s settings) (*gmail.Service, error) {
	transport := http.DefaultTransport.(*http.Transport).Clone() // keeps ForceAttemptHTTP2: h2 by ALPN
	if s.caCert != "" {
		pem, err := os.ReadFile(s.caCert)
		if err != nil {
			return nil, fmt.Errorf("--ca-cert: %v", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca-cert: no PEM certificate in %s", s.caCert)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: transport})
	client := oauth2.NewClient(ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: s.token, TokenType: "Bearer"}))
	return gmail.NewService(context.Background(), option.WithEndpoint(s.root), option.WithHTTPClient(client))
}

func run(svc *gmail.Service, s settings) result {
	out := result{Mode: s.mode, N: s.n, RunsMs: []float64{}}
	ids := s.ids
	if s.mode == "get" && len(ids) == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		listed, err := list(ctx, svc, s)
		cancel()
		if err != nil {
			out.Errors, out.FirstError = s.runs, redact("finding ids to get: "+err.Error(), s.token)
			return out
		}
		for _, m := range listed {
			ids = append(ids, m.Id)
		}
		if len(ids) == 0 {
			out.Errors, out.FirstError = s.runs, "finding ids to get: the list was empty"
			return out
		}
	}
	for i := 0; i < s.warmup+s.runs; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		start := time.Now() // carries the monotonic clock; time.Since reads it
		var err error
		if s.mode == "list" {
			var emails []Email
			emails, err = listEmails(ctx, svc, s)
			if err == nil {
				out.Messages = len(emails)
			}
		} else {
			_, err = getEmail(ctx, svc, s, ids[i%len(ids)])
		}
		elapsed := time.Since(start)
		cancel()
		if i < s.warmup {
			continue
		}
		if err != nil {
			if out.Errors == 0 {
				out.FirstError = redact(err.Error(), s.token)
			}
			out.Errors++
			continue
		}
		out.RunsMs = append(out.RunsMs, float64(elapsed.Nanoseconds())/1e6)
	}
	return out
}

func list(ctx context.Context, svc *gmail.Service, s settings) ([]*gmail.Message, error) {
	call := svc.Users.Messages.List("me").LabelIds(s.label).MaxResults(int64(s.n)).Context(ctx)
	if s.listFields != "" {
		call.Fields(field(s.listFields))
	}
	r, err := call.Do()
	if err != nil {
		return nil, err
	}
	return r.Messages, nil
}

// listEmails is the article's list_emails: the list, then a goroutine per message, each writing its own index
// (no lock), the first error returned once all have finished.
func listEmails(ctx context.Context, svc *gmail.Service, s settings) ([]Email, error) {
	messages, err := list(ctx, svc, s)
	if err != nil {
		return nil, err
	}
	emails := make([]Email, len(messages))
	errs := make([]error, len(messages))
	var wg sync.WaitGroup
	for i, msgRef := range messages {
		wg.Add(1)
		go func(idx int, id string) {
			defer wg.Done()
			call := svc.Users.Messages.Get("me", id).Format("metadata").MetadataHeaders("Subject", "From", "Date").Context(ctx)
			if s.getFields != "" {
				call.Fields(field(s.getFields))
			}
			msg, err := call.Do()
			if err != nil {
				errs[idx] = err
				return
			}
			headers := parseHeaders(msg.Payload)
			emails[idx] = Email{ID: msg.Id, Subject: defaultStr(headers["subject"], "(件名なし)"), From: headers["from"], Date: headers["date"]}
		}(i, msgRef.Id)
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return emails, nil
}

var tags = regexp.MustCompile(`(?s)<[^>]*>`)

// getEmail is the article's get_email: one messages.get of the whole message, then its text body decoded (text/plain,
// else text/html without its tags).
func getEmail(ctx context.Context, svc *gmail.Service, s settings, id string) (string, error) {
	call := svc.Users.Messages.Get("me", id).Format("full").Context(ctx)
	msg, err := call.Do()
	if err != nil {
		return "", err
	}
	if text := body(msg.Payload, "text/plain"); text != "" {
		return text, nil
	}
	return tags.ReplaceAllString(body(msg.Payload, "text/html"), ""), nil
}

func body(p *gmail.MessagePart, mimeType string) string {
	if p == nil {
		return ""
	}
	if p.MimeType == mimeType && p.Body != nil && p.Body.Data != "" {
		data, err := base64.URLEncoding.DecodeString(p.Body.Data)
		if err != nil {
			data, _ = base64.RawURLEncoding.DecodeString(p.Body.Data)
		}
		return string(data)
	}
	for _, part := range p.Parts {
		if text := body(part, mimeType); text != "" {
			return text
		}
	}
	return ""
}

func parseHeaders(p *gmail.MessagePart) map[string]string {
	headers := map[string]string{}
	if p == nil {
		return headers
	}
	for _, h := range p.Headers {
		headers[strings.ToLower(h.Name)] = h.Value
	}
	return headers
}

func defaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func field(mask string) googleapi.Field { return googleapi.Field(mask) }

// redact replaces the token in an error's text. The client sends it only in a header, so it should never be there;
// a token shorter than 8 characters (a test's "t") is not a real one and would garble every word it occurs in.
func redact(message, token string) string {
	if len(token) < 8 {
		return message
	}
	return strings.ReplaceAll(message, token, "<token>")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
