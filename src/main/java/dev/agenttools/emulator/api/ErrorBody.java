package dev.agenttools.emulator.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Renders an {@link ApiError} as Google's JSON error envelope ({@code error.code/message/errors/status}). */
public final class ErrorBody {
    private ErrorBody() {
    }

    /**
     * Calendar's form of an error. Calendar's backend answers {@code {"error": {"errors": [{domain, reason, message,
     * locationType, location}], "code", "message"}}}, without {@code status} (the two real 400s recorded in
     * NangoHQ/integration-templates, and Google's Calendar error guide); the front end's answers (a missing or bad
     * token, a missing scope, a spent quota) are the same for every API and keep {@link #of}'s form.
     */
    public static ApiResponse calendar(ApiError error) {
        boolean frontEnd = error.status == 401 || error.status == 429 || error.errorInfo != null
                || error.domain.equals("usageLimits");
        if (frontEnd) {
            return of(error);
        }
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode body = root.putObject("error");
        ObjectNode item = body.putArray("errors").addObject();
        item.put("domain", error.domain);
        item.put("reason", error.reason);
        item.put("message", error.itemMessage != null ? error.itemMessage : error.getMessage());
        if (error.location != null) {
            item.put("locationType", error.locationType);
            item.put("location", error.location);
        }
        body.put("code", error.status);
        body.put("message", error.getMessage());
        return ApiResponse.json(error.status, root);
    }

    public static ApiResponse of(ApiError error) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode body = root.putObject("error");
        body.put("code", error.status);
        body.put("message", error.getMessage());
        ObjectNode item = body.putArray("errors").addObject();
        item.put("message", error.itemMessage != null ? error.itemMessage : error.getMessage());
        item.put("domain", error.domain);
        item.put("reason", error.reason);
        if (error.location != null) {
            item.put("location", error.location);
            item.put("locationType", error.locationType);
        }
        body.put("status", error.statusName());
        if (error.errorInfo != null) {
            body.putArray("details").addObject().put("@type", "type.googleapis.com/google.rpc.ErrorInfo")
                    .put("reason", error.errorInfo).put("domain", "googleapis.com");
        }
        ApiResponse response = ApiResponse.json(error.status, root);
        if (error.status == 401) {
            // What Google sends; it also tells the Java client's Credential that a refresh would not help.
            response = response.withHeader("WWW-Authenticate",
                    "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\"");
        }
        return response;
    }
}
