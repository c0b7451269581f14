package dev.agenttools.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The front door every mode uses (one-shot call, serve, MCP, bench): the tools by name, and the one call path.
 * A call enters with its start time; the registry gives it its one {@link Deadline} (from {@code timeout_ms}), runs
 * the interceptors (the first added is the outermost) and the tool, the tool on a virtual thread of its own that the
 * deadline interrupts, times the whole once, and tells the listeners. Interceptors and listeners run on the caller's
 * thread, the tool on its own: what a caller keeps per thread does not reach the tool.
 * Immutable once built; thread-safe. {@link #close()} releases what the tools hold (HTTP clients and their
 * threads): a process that ends, or a resident server that drops a session, closes its registry.
 */
public final class ToolRegistry implements AutoCloseable {
    private final Map<String, Tool> tools;
    private final List<AutoCloseable> resources;
    private final List<ToolInterceptor> interceptors;
    private final List<CallListener> listeners;
    private final CallTimeouts timeouts;

    private ToolRegistry(Builder b) {
        this.tools = Collections.unmodifiableMap(new LinkedHashMap<>(b.tools));
        this.interceptors = List.copyOf(b.interceptors);
        this.listeners = List.copyOf(b.listeners);
        this.timeouts = b.timeouts;
        this.resources = List.copyOf(b.resources);
    }

    /**
     * Closes the resources the tools registered (last registered first), each once and whatever the others do; calls
     * still running may then fail. A JVM with a live JDK HttpClient, say, takes 300 ms longer to exit: its selector
     * thread sits in native code, which the VM's exit waits for.
     */
    @Override
    public void close() {
        for (AutoCloseable r : resources.reversed()) {
            try {
                r.close();
            } catch (Exception e) {
                // closing anyway: one resource's failure must not keep the others open
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every tool's spec, its schema with the call-level params ({@code timeout_ms}, {@code agent_name}) added. */
    public List<ToolSpec> specs() {
        return tools.values().stream().map(t -> withCallParams(t.spec())).map(ToolRegistry::withAgentNameBound).toList();
    }

    /** {@code spec} (made here, its schema our own copy) with agent_name's bound ({@link Params#agentName}) in its schema. */
    private static ToolSpec withAgentNameBound(ToolSpec spec) {
        ((ObjectNode) spec.inputSchema().get("properties").get(Params.AGENT_NAME)).put("maxLength", Params.MAX_AGENT_NAME)
                .put("description", "Who is calling, for call statistics: one line, at most " + Params.MAX_AGENT_NAME + " characters.");
        return spec;
    }

    public CallTimeouts timeouts() {
        return timeouts;
    }

    private ToolSpec withCallParams(ToolSpec spec) {
        ObjectNode schema = spec.inputSchema().deepCopy();
        ObjectNode properties = schema.get("properties") instanceof ObjectNode o ? o : schema.putObject("properties");
        properties.putObject(CallTimeouts.PARAM).put("type", "integer").put("minimum", timeouts.min().toMillis())
                .put("maximum", timeouts.max().toMillis()).put("default", timeouts.defaultTimeout().toMillis())
                .put("description", "Overall deadline of the call in milliseconds, from when it is received to its answer: "
                        + "set-up, retries and any fallback included.");
        properties.putObject("agent_name").put("type", "string").put("description", "Who is calling, for call statistics.");
        return new ToolSpec(spec.name(), spec.description(), schema, spec.effect());
    }

    /**
     * Runs a call through the interceptors and the tool within its deadline, and times it.
     *
     * @return the answer, its duration counted from {@code call.startNanos()}
     * @throws ToolException INVALID_ARGUMENT for an unknown tool, a bad {@code timeout_ms} or {@code agent_name} (see
     *                       {@link Params#agentName}), or whatever the tool
     *                       throws; anything else a tool throws is wrapped as INTERNAL so callers only ever see
     *                       ToolException
     */
    public ToolResult call(ToolCall request) {
        inFlight.incrementAndGet();
        try {
            return answer(request);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /** Calls being answered now (a background task that would slow them waits for none). */
    public int inFlight() {
        return inFlight.get();
    }

    private final AtomicInteger inFlight = new AtomicInteger();

    private ToolResult answer(ToolCall received) {
        Tool tool = tools.get(received.tool());
        if (tool == null) {
            throw ToolException.invalidArgument("unknown command '" + Params.clip(received.tool()) + "'; known: "
                    + String.join(", ", tools.keySet()));
        }
        // recorded with every call: checked before anyone sees it, so a refused name is stored nowhere (as an unknown
        // command is not); the call's own name (a transport's, or the param's) is held to the same rule as the param
        Params.agentName(received.params());
        String agent = Params.name(Params.AGENT_NAME, received.agentName(), Params.MAX_AGENT_NAME);
        ToolCall request = agent.equals(received.agentName()) ? received : new ToolCall(received.tool(), received.params(),
                agent, received.requestId(), received.startNanos(), received.deadline());
        ToolCall call = request;
        ToolResult result = null;
        ToolException error = null;
        try {
            call = request.withDeadline(timeouts.deadlineOf(request));
            if (call.deadline().remainingNanos() <= 0) {
                // it waited its whole time before it could start (in serve's queue, say): running it now helps nobody
                throw call.deadline().exceeded(request.tool() + " (the call waited its whole timeout before it could start)");
            }
            try {
                result = chain(tool).call(call);
            } catch (InterruptedException e) {
                // the caller's thread was interrupted (a server closing): the call is abandoned
                Thread.currentThread().interrupt();
                throw new ToolException(ToolException.Kind.DEADLINE, request.tool() + ": cancelled");
            }
            return result = result.withDuration(since(request));
        } catch (ToolException e) {
            throw error = e;
        } catch (RuntimeException e) {
            throw error = new ToolException(ToolException.Kind.INTERNAL, request.tool() + ": internal error: " + e, e);
        } finally {
            tell(new CallOutcome(call, error == null ? result : null, error, result != null && error == null
                    ? result.duration() : since(request)));
        }
    }

    private static Duration since(ToolCall call) {
        return Duration.ofNanos(System.nanoTime() - call.startNanos());
    }

    private void tell(CallOutcome outcome) {
        for (CallListener l : listeners) {
            try {
                l.completed(outcome);
            } catch (RuntimeException ignored) {
                // watching a call must never fail it (see CallListener)
            }
        }
    }

    private Tool chain(Tool tool) {
        Tool chain = new Bounded(tool);
        for (int i = interceptors.size() - 1; i >= 0; i--) {
            chain = new Intercepted(interceptors.get(i), chain);
        }
        return chain;
    }

    /**
     * The tool on a virtual thread of its own, so that its deadline ends the wait even when the tool is stuck in a
     * read that does not look at it (set-up, a slow upstream): the caller gets {@code deadline} on time and the tool's
     * thread is interrupted. Each attempt (the fallback's too) runs so; its error names the tool.
     */
    private record Bounded(Tool tool) implements Tool {
        @Override
        public ToolSpec spec() {
            return tool.spec();
        }

        @Override
        public ToolResult call(ToolCall c) {
            return FanOut.one(c.deadline(), c.tool(), () -> tool.call(c));
        }

        @Override
        public ToolCall fallback(ToolCall failed) {
            return tool.fallback(failed);
        }
    }

    /** One interceptor around the rest of the chain; spec and fallback are the tool's. */
    private record Intercepted(ToolInterceptor interceptor, Tool next) implements Tool {
        @Override
        public ToolSpec spec() {
            return next.spec();
        }

        @Override
        public ToolResult call(ToolCall c) throws InterruptedException {
            return interceptor.intercept(c, next);
        }

        @Override
        public ToolCall fallback(ToolCall failed) {
            return next.fallback(failed);
        }
    }

    /** Collects tools, interceptors and listeners; {@link #build()} seals them. */
    public static final class Builder {
        private final Map<String, Tool> tools = new LinkedHashMap<>();
        private final List<ToolInterceptor> interceptors = new ArrayList<>();
        private final List<CallListener> listeners = new ArrayList<>();
        private CallTimeouts timeouts = CallTimeouts.withDefault(CallTimeouts.DEFAULT_TIMEOUT);
        private final List<AutoCloseable> resources = new ArrayList<>();

        private Builder() {
        }

        /** Something the tools hold that {@link ToolRegistry#close()} should release (an HTTP client, say). */
        public Builder resource(AutoCloseable resource) {
            resources.add(Objects.requireNonNull(resource, "resource"));
            return this;
        }

        public Builder tool(Tool tool) {
            String name = tool.spec().name();
            if (tools.putIfAbsent(name, tool) != null) {
                throw new IllegalArgumentException("two tools named " + name);
            }
            return this;
        }

        public Builder interceptor(ToolInterceptor interceptor) {
            interceptors.add(interceptor);
            return this;
        }

        public Builder listener(CallListener listener) {
            listeners.add(listener);
            return this;
        }

        /** What {@code timeout_ms} may be (default: 30 s, within 100 ms..5 min). */
        public Builder timeouts(CallTimeouts t) {
            timeouts = Objects.requireNonNull(t, "timeouts");
            return this;
        }

        public ToolRegistry build() {
            return new ToolRegistry(this);
        }
    }
}
