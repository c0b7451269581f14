package dev.agenttools.gmail;

import com.google.api.client.googleapis.batch.BatchRequest;
import com.google.api.client.googleapis.batch.json.JsonBatchCallback;
import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpResponseException;
import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.Deadline;
import dev.agenttools.google.FanOut;
import dev.agenttools.google.GoogleErrors;
import dev.agenttools.google.QuotaPacer;
import dev.agenttools.tool.ToolException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Gmail's HTTP batch endpoint: messages fetched in chunks (at most the configured batch size, 50 by default as
 * Google advises, and no more than the in-flight limit, since Gmail charges each part to it), each chunk one
 * round trip. A part's error is judged as a single get's would be (the same retries, the same
 * {@link Fetched#ofFailure}): parts that come back 429 or 5xx are retried in a later batch after a backoff; 404
 * parts are messages deleted since the list; a part that still fails on its own is that message's error.
 */
final class BatchFetch implements FetchStrategy {
    private final GmailService service;

    BatchFetch(GmailService service) {
        this.service = service;
    }

    @Override
    public String name() {
        return "batch";
    }

    @Override
    public List<Fetched> fetch(Gmail gmail, List<String> ids, GmailService.View view, Deadline deadline) {
        int chunkSize = Math.min(service.settings().batchSize(), service.pacer().maxInFlight());
        List<List<String>> chunks = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += chunkSize) {
            chunks.add(ids.subList(i, Math.min(ids.size(), i + chunkSize)));
        }
        int parallel = Math.max(1, service.pacer().maxInFlight() / chunkSize);
        List<Map<String, Fetched>> answers = FanOut.map(chunks, parallel, deadline, "gmail batch of " + ids.size(),
                chunk -> fetchChunk(gmail, chunk, view, deadline));
        Map<String, Fetched> all = new LinkedHashMap<>();
        answers.forEach(all::putAll);
        List<Fetched> out = new ArrayList<>(ids.size());
        ids.forEach(id -> out.add(all.get(id)));
        return out;
    }

    /** One chunk, retrying its retryable parts until every part has its answer. */
    private Map<String, Fetched> fetchChunk(Gmail gmail, List<String> chunk, GmailService.View view, Deadline deadline)
            throws InterruptedException {
        int maxAttempts = service.retry().maxAttempts();
        Map<String, Fetched> done = new LinkedHashMap<>();
        List<String> pending = new ArrayList<>(chunk);
        for (int attempt = 1; ; attempt++) {
            String what = "gmail batch messages.get x" + pending.size();
            // parts refused for now (429, 5xx), with their error: retried, or judged once attempts run out
            Map<String, GoogleJsonResponseException> refused = new LinkedHashMap<>();
            List<String> sent = pending;
            int currentAttempt = attempt;
            service.retry().run(what, deadline, () -> {
                refused.clear();
                try (QuotaPacer.Permit p = service.pacer().acquire(GmailService.GET_UNITS * sent.size(), sent.size(), deadline, what)) {
                    BatchRequest batch = gmail.batch();
                    for (String id : sent) {
                        GmailService.getRequest(gmail, id, view).queue(batch, new JsonBatchCallback<Message>() {
                            @Override
                            public void onSuccess(Message message, HttpHeaders headers) {
                                done.put(id, new Fetched.Found(message));
                            }

                            @Override
                            public void onFailure(GoogleJsonError e, HttpHeaders headers) {
                                GoogleJsonResponseException error = asException(e, headers);
                                if (GoogleErrors.retryable(error)) {
                                    refused.put(id, error);
                                } else {
                                    // throws (ending the batch) when the part's error fails the whole call
                                    done.put(id, judge(id, error, currentAttempt, deadline));
                                }
                            }
                        });
                    }
                    batch.execute();
                }
                return null;
            });
            if (refused.isEmpty()) {
                return done;
            }
            if (attempt >= maxAttempts) {
                // a part still rate limited fails the call (the quota is the user's); one still failing alone is its error
                refused.forEach((id, error) -> done.put(id, judge(id, error, currentAttempt, deadline)));
                return done;
            }
            long wait = service.retry().backoffNanos(attempt, refused.values().iterator().next());
            if (wait >= deadline.remainingNanos()) {
                throw new ToolException(ToolException.Kind.DEADLINE, "deadline of " + deadline.budget().toMillis()
                        + " ms leaves no time to retry " + refused.size() + " refused parts of a batch; last error: "
                        + GoogleErrors.translate(refused.values().iterator().next(), what, attempt, deadline).getMessage());
            }
            TimeUnit.NANOSECONDS.sleep(wait);
            pending = new ArrayList<>(refused.keySet());
        }
    }

    private Fetched judge(String id, GoogleJsonResponseException error, int attempt, Deadline deadline) {
        ToolException failure = GoogleErrors.translate(error, "gmail messages.get " + id + " in a batch", attempt, deadline);
        return Fetched.ofFailure(id, failure, service.retry().maxAttempts());
    }

    /** A batch part's error as the exception a single get would have thrown, so that both are judged alike. */
    private static GoogleJsonResponseException asException(GoogleJsonError e, HttpHeaders headers) {
        return new GoogleJsonResponseException(new HttpResponseException.Builder(e.getCode(), null,
                headers == null ? new HttpHeaders() : headers).setMessage(e.getCode() + " " + e.getMessage()), e);
    }
}
