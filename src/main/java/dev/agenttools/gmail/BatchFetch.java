package dev.agenttools.gmail;

import com.google.api.client.googleapis.batch.BatchRequest;
import com.google.api.client.googleapis.batch.json.JsonBatchCallback;
import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.http.HttpHeaders;
import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.Deadline;
import dev.agenttools.google.FanOut;
import dev.agenttools.google.QuotaPacer;
import dev.agenttools.tool.ToolException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Gmail's HTTP batch endpoint: messages fetched in chunks (at most the configured batch size, 50 by default as
 * Google advises, and no more than the in-flight limit, since Gmail charges each part to it), each chunk one
 * round trip. Parts that come back 429 or 5xx are retried in a later batch after a backoff; 404 parts are
 * messages deleted since the list.
 */
final class BatchFetch implements FetchStrategy {
    private static final Set<String> RATE_REASONS = Set.of("rateLimitExceeded", "userRateLimitExceeded");
    private final GmailService service;

    BatchFetch(GmailService service) {
        this.service = service;
    }

    @Override
    public String name() {
        return "batch";
    }

    @Override
    public List<Message> fetch(Gmail gmail, List<String> ids, GmailService.View view, Deadline deadline) {
        int chunkSize = Math.min(service.settings().batchSize(), service.pacer().maxInFlight());
        List<List<String>> chunks = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += chunkSize) {
            chunks.add(ids.subList(i, Math.min(ids.size(), i + chunkSize)));
        }
        int parallel = Math.max(1, service.pacer().maxInFlight() / chunkSize);
        List<Map<String, Message>> answers = FanOut.map(chunks, parallel, deadline, "gmail batch of " + ids.size(),
                chunk -> fetchChunk(gmail, chunk, view, deadline));
        Map<String, Message> all = new LinkedHashMap<>();
        answers.forEach(all::putAll);
        List<Message> out = new ArrayList<>(ids.size());
        ids.forEach(id -> out.add(all.get(id)));
        return out;
    }

    /** One chunk, retrying its retryable parts until all are answered; the map holds null for vanished messages. */
    private Map<String, Message> fetchChunk(Gmail gmail, List<String> chunk, GmailService.View view, Deadline deadline)
            throws InterruptedException {
        Map<String, Message> done = new LinkedHashMap<>();
        List<String> pending = new ArrayList<>(chunk);
        for (int attempt = 1; !pending.isEmpty(); attempt++) {
            String what = "gmail batch messages.get x" + pending.size();
            List<String> retry = new ArrayList<>();
            List<String> sent = pending;
            int currentAttempt = attempt;
            service.retry().run(what, deadline, () -> {
                retry.clear();
                try (QuotaPacer.Permit p = service.pacer().acquire(GmailService.GET_UNITS * sent.size(), sent.size(), deadline, what)) {
                    BatchRequest batch = gmail.batch();
                    for (String id : sent) {
                        GmailService.getRequest(gmail, id, view).queue(batch, new JsonBatchCallback<Message>() {
                            @Override
                            public void onSuccess(Message message, HttpHeaders headers) {
                                done.put(id, message);
                            }

                            @Override
                            public void onFailure(GoogleJsonError e, HttpHeaders headers) throws IOException {
                                int code = e.getCode();
                                String reason = e.getErrors() == null || e.getErrors().isEmpty() ? null : e.getErrors().getFirst().getReason();
                                if (code == 404) {
                                    done.put(id, null);
                                } else if (code == 429 || code >= 500 || (code == 403 && RATE_REASONS.contains(reason))) {
                                    retry.add(id);
                                } else {
                                    throw new PartFailed(id, code, e.getMessage(), currentAttempt);
                                }
                            }
                        });
                    }
                    try {
                        batch.execute();
                    } catch (PartFailed e) {
                        throw e.toToolException(); // not an I/O failure: no retry fixes it
                    }
                }
                return null;
            });
            if (!retry.isEmpty()) {
                long wait = service.retry().backoffNanos(attempt, null);
                if (attempt >= service.retry().maxAttempts() || wait >= deadline.remainingNanos()) {
                    throw new ToolException(ToolException.Kind.RATE_LIMITED, "gmail batch: " + retry.size()
                            + " parts still refused (429/5xx) after " + attempt + " attempts, " + deadline.elapsed().toMillis() + " ms");
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.sleep(wait);
            }
            pending = new ArrayList<>(retry);
        }
        return done;
    }

    /** A batch part failed for a reason no retry fixes (400, 401, 403...): the whole call fails. */
    private static final class PartFailed extends IOException {
        private static final long serialVersionUID = 1L;
        private final int code;

        PartFailed(String id, int code, String message, int attempt) {
            super("gmail messages.get " + id + " in a batch failed with HTTP " + code + ": " + message + " (attempt " + attempt + ")");
            this.code = code;
        }

        ToolException toToolException() {
            ToolException.Kind kind = switch (code) {
                case 400 -> ToolException.Kind.INVALID_ARGUMENT;
                case 401, 403 -> ToolException.Kind.UNAUTHENTICATED;
                default -> ToolException.Kind.UPSTREAM;
            };
            return new ToolException(kind, getMessage(), this);
        }
    }
}
