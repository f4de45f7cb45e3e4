package dev.tollgate.rules;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console over plain HTTP, as a browser without scripts uses it: signed in through the token form (the context
 * needs {@code tollgate.console.token-sign-in=true}), pages fetched with the session's cookie, forms posted with the
 * page's CSRF token.
 */
final class ConsoleHttp {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final int port;
    private final String cookie;

    private ConsoleHttp(int port, String cookie) {
        this.port = port;
        this.cookie = cookie;
    }

    /** A session of {@code subject} with {@code scopes}, signed in as a person would. */
    static ConsoleHttp signIn(int port, String subject, String... scopes) throws Exception {
        ConsoleHttp anonymous = new ConsoleHttp(port, "");
        HttpResponse<String> form = anonymous.http.send(HttpRequest.newBuilder(anonymous.uri("/console/login")).build(),
                HttpResponse.BodyHandlers.ofString());
        String body = "who=token&token=" + URLEncoder.encode(TestTokens.token(subject, scopes), StandardCharsets.UTF_8)
                + "&_csrf=" + URLEncoder.encode(csrf(form.body()), StandardCharsets.UTF_8);
        HttpResponse<String> signedIn = anonymous.http.send(HttpRequest.newBuilder(anonymous.uri("/console/login"))
                .header("Cookie", cookie(form)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(signedIn.statusCode()).as(signedIn.body()).isEqualTo(302);
        return new ConsoleHttp(port, cookie(signedIn));
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A form of {@code page} sent as the browser sends it, with the page's CSRF token. */
    HttpResponse<String> post(String page, String path, String fields) throws Exception {
        return post(page, path, fields, new String[0]);
    }

    /** As {@link #post(String, String, String)}, with headers ({@code name, value, ...}): htmx's {@code HX-Request}. */
    HttpResponse<String> post(String page, String path, String fields, String... headers) throws Exception {
        String body = fields + "&_csrf=" + URLEncoder.encode(csrf(page), StandardCharsets.UTF_8);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).header("Cookie", cookie)
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String csrf(String page) {
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page);
        assertThat(csrf.find()).as("a CSRF field").isTrue();
        return csrf.group(1);
    }

    private static String cookie(HttpResponse<?> response) {
        return response.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("JSESSIONID="))
                .map(c -> c.substring(0, c.indexOf(';'))).findFirst().orElseThrow();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
