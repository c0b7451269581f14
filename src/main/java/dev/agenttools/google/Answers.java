package dev.agenttools.google;

import com.google.api.client.googleapis.batch.json.JsonBatchCallback;
import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpResponseException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * What one exchange with Google answered for each key it carried: a value, or the exception the request (or the
 * batch part) failed with. Filled on the thread that made the exchange; not thread-safe.
 */
public final class Answers<K, V> {
    private final Map<K, V> values = new LinkedHashMap<>();
    private final Map<K, Exception> failures = new LinkedHashMap<>();

    public void ok(K key, V value) {
        failures.remove(key);
        values.put(key, value);
    }

    public void failed(K key, Exception e) {
        values.remove(key);
        failures.put(key, e);
    }

    /** Every key of {@code pending} not answered yet failed with {@code e}: the exchange as a whole did. */
    void failUnanswered(List<K> pending, Exception e) {
        for (K k : pending) {
            if (!answered(k)) {
                failed(k, e);
            }
        }
    }

    boolean answered(K key) {
        return values.containsKey(key) || failures.containsKey(key);
    }

    boolean isOk(K key) {
        return values.containsKey(key);
    }

    V value(K key) {
        return values.get(key);
    }

    Exception failure(K key) {
        return failures.get(key);
    }

    void forEachFailure(BiConsumer<K, Exception> action) {
        failures.forEach(action);
    }

    int successes() {
        return values.size();
    }

    /**
     * The batch callback that answers {@code key} here: its value, or its error as the exception a single request
     * would have thrown (status, Google's details, Retry-After), so that a batch part is judged as a single call.
     */
    public JsonBatchCallback<V> callback(K key) {
        return new JsonBatchCallback<>() {
            @Override
            public void onSuccess(V value, HttpHeaders headers) {
                ok(key, value);
            }

            @Override
            public void onFailure(GoogleJsonError e, HttpHeaders headers) {
                failed(key, new GoogleJsonResponseException(
                        new HttpResponseException.Builder(e.getCode(), null,
                                headers == null ? new HttpHeaders() : headers)
                                .setMessage(e.getCode() + " " + e.getMessage()), e));
            }
        };
    }
}
