package dev.agenttools.emulator.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Google's partial-response selector ({@code fields=messages(id,threadId),nextPageToken}, {@code payload/headers}).
 * Written by hand: it is a thirty-line grammar and no Java library implements Google's dialect.
 */
public final class FieldMask {
    /** Child masks by field name; an empty mask keeps the whole value. */
    private final Map<String, FieldMask> children = new LinkedHashMap<>();

    private FieldMask() {
    }

    public static FieldMask parse(String spec) {
        FieldMask root = new FieldMask();
        int end = parseList(spec, 0, root);
        if (end != spec.length()) {
            throw badFields(spec);
        }
        return root;
    }

    private static int parseList(String spec, int pos, FieldMask into) {
        while (true) {
            pos = parsePath(spec, pos, into);
            if (pos < spec.length() && spec.charAt(pos) == ',') {
                pos++;
                continue;
            }
            return pos;
        }
    }

    private static int parsePath(String spec, int pos, FieldMask into) {
        int start = pos;
        while (pos < spec.length() && "/,()".indexOf(spec.charAt(pos)) < 0) {
            pos++;
        }
        String name = spec.substring(start, pos).trim();
        if (name.isEmpty()) {
            throw badFields(spec);
        }
        FieldMask child = name.equals("*") ? into : into.children.computeIfAbsent(name, k -> new FieldMask());
        if (pos < spec.length() && spec.charAt(pos) == '/') {
            return parsePath(spec, pos + 1, child);
        }
        if (pos < spec.length() && spec.charAt(pos) == '(') {
            pos = parseList(spec, pos + 1, child);
            if (pos >= spec.length() || spec.charAt(pos) != ')') {
                throw badFields(spec);
            }
            return pos + 1;
        }
        return pos;
    }

    private static ApiError badFields(String spec) {
        return ApiError.badRequest("fields", "Invalid field selection in fields: " + spec);
    }

    JsonNode apply(JsonNode node) {
        if (children.isEmpty()) {
            return node;
        }
        if (node instanceof ArrayNode array) {
            ArrayNode out = array.arrayNode();
            array.forEach(item -> out.add(apply(item)));
            return out;
        }
        if (node instanceof ObjectNode object) {
            ObjectNode out = object.objectNode();
            children.forEach((name, mask) -> {
                JsonNode value = object.get(name);
                if (value != null) {
                    out.set(name, mask.apply(value));
                }
            });
            return out;
        }
        return node;
    }
}
