package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.server.HttpService;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code agent-tools server}'s front limits, as the environment (or the config file, the same keys) gives them. */
class ServerLimitsTest {
    @Test
    void defaultsAreGenerousAndEachSettingIsRead() {
        HttpService.Limits defaults = ServerLimits.from(Settings.from(Map.of()));
        assertThat(defaults.userRate().burst()).isEqualTo(6_000);
        assertThat(defaults.addressRate().burst()).isEqualTo(6_000);
        assertThat(defaults.idleTimeout()).as("above AWS ALB's 60 s").isGreaterThanOrEqualTo(Duration.ofSeconds(75));
        assertThat(defaults.headerTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.maxConnections()).isEqualTo(ServerLimits.defaultMaxConnections()).isLessThanOrEqualTo(10_000);
        assertThat(defaults.metricsHosts()).contains("localhost");

        HttpService.Limits set = ServerLimits.from(Settings.from(Map.of(
                ServerLimits.USER_RATE, "30/10s", ServerLimits.ADDRESS_RATE, "100 / 1m",
                ServerLimits.HEADER_TIMEOUT, "5s", ServerLimits.IDLE_TIMEOUT, "10m",
                ServerLimits.MAX_CONNECTIONS, "500", ServerLimits.MAX_CONNECTIONS_PER_ADDRESS, "50",
                ServerLimits.METRICS_HOSTS, "metrics.internal, 10.0.0.0/8",
                ServerAuthorization.TRUSTED_PROXIES, "10.0.0.5")));
        assertThat(set.userRate().burst()).isEqualTo(30);
        assertThat(set.userRate().period()).isEqualTo(Duration.ofSeconds(10));
        assertThat(set.addressRate().burst()).isEqualTo(100);
        assertThat(set.headerTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(set.idleTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(set.maxConnections()).isEqualTo(500);
        assertThat(set.maxConnectionsPerAddress()).isEqualTo(50);
        assertThat(set.metricsHosts()).containsExactly("metrics.internal", "10.0.0.0/8");
        assertThat(set.trustedProxies()).containsExactly("10.0.0.5/32");
    }

    @Test
    void aBadSettingIsRefusedNamingItAndWhatItAllows() {
        Map<String, String> bad = Map.of(
                ServerLimits.USER_RATE, "lots", ServerLimits.ADDRESS_RATE, "0/1m",
                ServerLimits.HEADER_TIMEOUT, "10", ServerLimits.IDLE_TIMEOUT, "2h",
                ServerLimits.MAX_CONNECTIONS, "0", ServerLimits.METRICS_HOSTS, "not a host");
        for (var e : bad.entrySet()) {
            assertThatThrownBy(() -> ServerLimits.from(Settings.from(Map.of(e.getKey(), e.getValue()))))
                    .as(e.getKey()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(e.getKey());
        }
        assertThatThrownBy(() -> ServerLimits.from(Settings.from(Map.of(ServerLimits.MAX_CONNECTIONS, "100",
                ServerLimits.MAX_CONNECTIONS_PER_ADDRESS, "200"))))
                .hasMessageContaining(ServerLimits.MAX_CONNECTIONS_PER_ADDRESS).hasMessageContaining("at most");
    }
}
