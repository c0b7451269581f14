package dev.agenttools.server.oauth;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.FormFields;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Fields;

import java.util.Locale;

/**
 * A request's OAuth parameters: the query of a GET, the form of a POST. RFC 6749 section 3.1 says a parameter is sent
 * at most once; one sent twice is refused by naming it, so that no two parts of the server read different values.
 */
final class Params {
    static final int MAX_FIELDS = 30;
    static final int MAX_FORM_BYTES = 16 * 1024;

    /** A parameter sent more than once, or a form that cannot be read. */
    static final class Bad extends Exception {
        private static final long serialVersionUID = 1L;

        Bad(String message) {
            super(message);
        }
    }

    private final Fields fields;

    private Params(Fields fields) {
        this.fields = fields;
    }

    static Params query(Request request) {
        return new Params(Request.extractQueryParameters(request));
    }

    static Params form(Request request) throws Bad {
        String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            throw new Bad("the request body must be application/x-www-form-urlencoded");
        }
        try {
            return new Params(FormFields.getFields(request, MAX_FIELDS, MAX_FORM_BYTES));
        } catch (RuntimeException e) {
            throw new Bad("the form cannot be read (at most " + MAX_FIELDS + " fields and " + MAX_FORM_BYTES + " bytes)");
        }
    }

    /** The parameter's value, null when absent or empty (RFC 6749 section 3.1: empty counts as omitted). */
    String get(String name) throws Bad {
        Fields.Field f = fields.get(name);
        if (f == null) {
            return null;
        }
        if (f.getValues().size() > 1) {
            throw new Bad(name + " is given more than once");
        }
        String v = f.getValue();
        return v == null || v.isEmpty() ? null : v;
    }
}
