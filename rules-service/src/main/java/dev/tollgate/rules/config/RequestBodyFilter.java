package dev.tollgate.rules.config;

import dev.tollgate.rules.problem.BodyTooLargeException;
import dev.tollgate.rules.problem.ContainerProblems;
import dev.tollgate.rules.problem.ProblemCodes;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What a request body must be before anything reads it.
 *
 * <ul>
 *   <li>At most the limit: Spring MVC has no limit of its own, and an admin token is no reason to
 *       let one request buffer megabytes. A declared {@code Content-Length} over the limit is answered
 *       413 at once; a chunked body is counted as it is read and fails with
 *       {@link BodyTooLargeException}, which the problem handler turns into the same 413.</li>
 *   <li>Of a concrete media type: Spring's body reader throws a bare IllegalArgumentException (a 500)
 *       for {@code Content-Type: application/*}, so a wildcard is a 415 here.</li>
 * </ul>
 */
final class RequestBodyFilter extends OncePerRequestFilter {

    private final long defaultLimit;
    private final Map<String, Long> limitsByPath;

    /** @param limitsByPath a larger limit for the request paths that take whole files, spelt exactly; any other spelling gets the default */
    RequestBodyFilter(long defaultLimit, Map<String, Long> limitsByPath) {
        this.defaultLimit = defaultLimit;
        this.limitsByPath = Map.copyOf(limitsByPath);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long limit = limitsByPath.getOrDefault(request.getRequestURI(), defaultLimit);
        if (request.getContentLengthLong() > limit) {
            refuse(request, response, HttpStatus.CONTENT_TOO_LARGE, ProblemCodes.PAYLOAD_TOO_LARGE,
                    "The request body is larger than " + limit + " bytes, the most this service accepts.");
            return;
        }
        if (isWildcard(request.getContentType())) {
            refuse(request, response, HttpStatus.UNSUPPORTED_MEDIA_TYPE, ProblemCodes.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type must name a media type, such as application/json, not a wildcard.");
            return;
        }
        chain.doFilter(new Limited(request, limit), response);
    }

    /** A type that parses as a media type with a {@code *} in it; one that does not parse is Spring's to refuse (415). */
    static boolean isWildcard(String contentType) {
        if (contentType == null) {
            return false;
        }
        try {
            MediaType type = MediaType.parseMediaType(contentType);
            return type.isWildcardType() || type.isWildcardSubtype();
        } catch (InvalidMediaTypeException e) {
            return false;
        }
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, HttpStatus status, String code, String detail)
            throws IOException {
        response.setStatus(status.value());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        // the body was not read: ask the client not to send the rest on this connection
        response.setHeader("Connection", "close");
        response.getWriter().write(ContainerProblems.body(status.value(), code, detail, request.getRequestURI()));
    }

    private static final class Limited extends HttpServletRequestWrapper {

        private final long limit;
        private ServletInputStream stream;

        Limited(HttpServletRequest request, long limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new Counting(super.getInputStream(), limit);
            }
            return stream;
        }
    }

    private static final class Counting extends ServletInputStream {

        private final ServletInputStream in;
        private final long limit;
        private long read;

        Counting(ServletInputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws BodyTooLargeException {
            read += n;
            if (read > limit) {
                throw new BodyTooLargeException(limit);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
