package dev.agenttools.bench;

import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;
import dev.agenttools.tracking.CallRecorder;
import dev.agenttools.tracking.TrackingListener;
import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What call tracking adds to a call: the same no-op tool called through a registry with and without the
 * tracking interceptor (recording into a SQLite file), interleaved so that both see the same machine.
 */
final class TrackingBench {
    private static final int WARMUP = 20_000;

    private TrackingBench() {
    }

    /** A tool that does nothing, so that only the registry path is measured. */
    private static final class Noop implements Tool {
        private final ToolSpec spec = new ToolSpec("bench.noop", "does nothing", Json.object().put("type", "object"), ToolSpec.Effect.READ);

        @Override
        public ToolSpec spec() {
            return spec;
        }

        @Override
        public ToolResult call(ToolCall call) {
            return new ToolResult(Json.object(), Backend.SEQUENTIAL, 0);
        }
    }

    static Map<String, Object> run(int calls) throws Exception {
        Path dir = Files.createTempDirectory("agent-tools-bench-tracking");
        CallRecorder recorder = CallRecorder.sqlite(dir.resolve("calls.db"), CallRecorder.DEFAULT_CAPACITY);
        try {
            ToolRegistry plain = ToolRegistry.builder().tool(new Noop()).build();
            ToolRegistry tracked = ToolRegistry.builder().listener(new TrackingListener(recorder)).tool(new Noop()).build();
            ToolCall call = new ToolCall("bench.noop", Json.object().put("strategy", "auto"), "bench", "r");
            for (int i = 0; i < WARMUP; i++) {
                plain.call(call);
                tracked.call(call);
                if (i % 50 == 0) {
                    Thread.sleep(0, 500_000);
                }
            }
            Thread.sleep(500); // let the writer catch up: the measured calls must take the normal path, not the drop path
            long droppedBefore = recorder.dropped();
            Histogram without = new Histogram(60_000_000_000L, 3);
            Histogram with = new Histogram(60_000_000_000L, 3);
            for (int i = 0; i < calls; i++) {
                long t0 = System.nanoTime();
                plain.call(call);
                long t1 = System.nanoTime();
                tracked.call(call);
                long t2 = System.nanoTime();
                without.recordValue(t1 - t0);
                with.recordValue(t2 - t1);
                if (i % 50 == 0) {
                    Thread.sleep(0, 500_000); // a realistic pace, so that the writer keeps up instead of dropping
                }
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("what", "registry call of a no-op tool, with and without tracking into SQLite");
            m.put("calls", calls);
            m.put("without_p50_us", without.getValueAtPercentile(50) / 1e3);
            m.put("with_p50_us", with.getValueAtPercentile(50) / 1e3);
            m.put("added_p50_us", (with.getValueAtPercentile(50) - without.getValueAtPercentile(50)) / 1e3);
            m.put("added_p99_us", (with.getValueAtPercentile(99) - without.getValueAtPercentile(99)) / 1e3);
            m.put("dropped_while_measured", recorder.dropped() - droppedBefore);
            recorder.close();
            m.put("records_written", recorder.written());
            m.put("records_dropped", recorder.dropped());
            return m;
        } finally {
            TempFolder.delete(dir);
        }
    }
}
