package dev.agenttools.google;

import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpResponseException;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** What a rate-limit error tells the caller: the limit it met, for Gmail's calls and Calendar's alike. */
class GoogleErrorsTest {
    private static GoogleJsonResponseException refused(String message) {
        GoogleJsonError details = new GoogleJsonError();
        details.setCode(429);
        details.setMessage(message);
        return new GoogleJsonResponseException(new HttpResponseException.Builder(429, null, new HttpHeaders()), details);
    }

    @Test
    void aConcurrencyRefusalSaysTooManyInFlightAndAQuotaRefusalSaysTheQuotaIsSpent() {
        ToolException inFlight = GoogleErrors.translate(refused("Too many concurrent requests for user"),
                "calendar events.list primary", 8, Deadline.in(Duration.ofSeconds(1)));
        assertThat(inFlight.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(inFlight.getMessage()).contains("in flight at once").doesNotContain("quota", "Gmail");
        ToolException quota = GoogleErrors.translate(refused("Rate Limit Exceeded"), "calendar events.list primary", 8,
                Deadline.in(Duration.ofSeconds(1)));
        assertThat(quota.getMessage()).contains("Google quota is spent").doesNotContain("Gmail");
    }
}
