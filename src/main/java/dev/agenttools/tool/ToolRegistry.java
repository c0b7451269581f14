package dev.agenttools.tool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The front door every mode uses (one-shot call, serve, MCP, bench): the tools by name, and the one call path
 * that runs interceptors around them. Immutable once built; thread-safe.
 */
public final class ToolRegistry {
    private final Map<String, Tool> tools;
    private final List<ToolInterceptor> interceptors;

    private ToolRegistry(Map<String, Tool> tools, List<ToolInterceptor> interceptors) {
        this.tools = tools;
        this.interceptors = interceptors;
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<ToolSpec> specs() {
        return tools.values().stream().map(Tool::spec).toList();
    }

    /**
     * Runs a call through the interceptors (the first added is the outermost) and the tool.
     *
     * @throws ToolException INVALID_ARGUMENT for an unknown tool, or whatever the tool throws; anything else a tool
     *                       throws is wrapped as INTERNAL so callers only ever see ToolException
     */
    public ToolResult call(ToolCall call) {
        Tool tool = tools.get(call.tool());
        if (tool == null) {
            throw ToolException.invalidArgument("unknown command '" + call.tool() + "'; known: " + String.join(", ", tools.keySet()));
        }
        Tool chain = timed(tool);
        for (int i = interceptors.size() - 1; i >= 0; i--) {
            ToolInterceptor interceptor = interceptors.get(i);
            Tool next = chain;
            chain = new Tool() {
                @Override
                public ToolSpec spec() {
                    return next.spec();
                }

                @Override
                public ToolResult call(ToolCall c) {
                    return interceptor.intercept(c, next);
                }
            };
        }
        try {
            return chain.call(call);
        } catch (ToolException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ToolException(ToolException.Kind.INTERNAL, call.tool() + ": internal error: " + e, e);
        }
    }

    private static Tool timed(Tool tool) {
        return new Tool() {
            @Override
            public ToolSpec spec() {
                return tool.spec();
            }

            @Override
            public ToolResult call(ToolCall c) {
                long start = System.nanoTime();
                ToolResult result = tool.call(c);
                return result.withDuration(Duration.ofNanos(System.nanoTime() - start));
            }
        };
    }

    /** Collects tools and interceptors; {@link #build()} seals them. */
    public static final class Builder {
        private final Map<String, Tool> tools = new LinkedHashMap<>();
        private final List<ToolInterceptor> interceptors = new ArrayList<>();

        private Builder() {
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

        public ToolRegistry build() {
            return new ToolRegistry(java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tools)), List.copyOf(interceptors));
        }
    }
}
