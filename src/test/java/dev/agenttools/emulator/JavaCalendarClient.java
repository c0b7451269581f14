package dev.agenttools.emulator;

import com.google.api.client.http.javanet.NetHttpTransport;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.services.calendar.Calendar;

/** The official Calendar Java client pointed at an emulator: only the root URL and the token differ from production. */
public final class JavaCalendarClient {
    private JavaCalendarClient() {
    }

    public static Calendar connect(Emulator emulator, String token) {
        return new Calendar.Builder(new NetHttpTransport(), GsonFactory.getDefaultInstance(), request -> {
            request.getHeaders().setAuthorization("Bearer " + token);
            request.setReadTimeout(30_000);
        }).setApplicationName("agent-tools-emulator-test").setRootUrl(emulator.rootUri().toString()).build();
    }
}
