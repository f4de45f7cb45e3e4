package dev.tollgate.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every link in the repository's Markdown (README.md, docs/, the chart's and the bench's READMEs, examples) leads to
 * something in the repository: a file or folder that exists, a heading that exists in that file (GitHub's anchor of
 * it), never a page outside the repository and never a path that climbs out of it. The docs are read from a clone,
 * where an outside link may be gone or point at another version than the code beside it (issue 32).
 */
class DocsLinksTest {

    private static final Path ROOT = RepositoryFiles.path("").toAbsolutePath().normalize();

    /** {@code [text](target)} and {@code ![alt](target)}; the target may be in angle brackets and carry a title. */
    private static final Pattern INLINE = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]\\(\\s*(<[^>]*>|[^\\s)]+)(?:\\s+(?:\"[^\"]*\"|'[^']*'))?\\s*\\)");
    /** {@code [id]: target} at the start of a line. */
    private static final Pattern DEFINITION = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");
    /** {@code <https://...>} and the HTML attributes that link. */
    private static final Pattern AUTOLINK = Pattern.compile("<((?:[a-zA-Z][a-zA-Z0-9+.-]*:|www\\.)[^>\\s]*)>");
    private static final Pattern HTML = Pattern.compile("(?i)\\b(?:href|src)\\s*=\\s*[\"']([^\"']*)[\"']");
    /** What GitHub turns into a link by itself in prose. */
    private static final Pattern BARE_URL = Pattern.compile("(?i)\\b(?:https?://|ftp://|mailto:|www\\.)[^\\s)>\\]]+");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("(?i)<a\\s+[^>]*\\b(?:name|id)\\s*=\\s*[\"']([^\"']+)[\"']");
    private static final Pattern FENCE = Pattern.compile("^\\s*(`{3,}|~{3,})");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1", Pattern.DOTALL);

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyMarkdownLinkLeadsToAFileOrHeadingInTheRepository() throws IOException {
        List<Path> files = markdownFiles();
        assertThat(files).as("the README and docs/ are found from " + ROOT)
                .contains(ROOT.resolve("README.md"), ROOT.resolve("docs/rules.md"));
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            for (Link link : links(file)) {
                String problem = problem(file, link.target());
                if (problem != null) {
                    problems.add(ROOT.relativize(file) + ":" + link.line() + ": " + link.target() + " — " + problem);
                }
            }
        }
        assertThat(problems).as("links in the repository's Markdown that lead nowhere in it").isEmpty();
    }

    @Test
    void aBrokenLinkOfEachKindIsFound() {
        Path readme = ROOT.resolve("README.md");
        assertThat(problem(readme, "https://example.com/")).contains("outside the repository");
        assertThat(problem(readme, "mailto:someone@example.com")).contains("outside the repository");
        assertThat(problem(readme, "../outside.md")).contains("climbs out of the repository");
        assertThat(problem(readme, "docs/no-such-file.md")).contains("no such file");
        assertThat(problem(readme, "#no-such-heading")).contains("no heading");
        assertThat(problem(readme, "docs/rules.md#no-such-heading")).contains("no heading");
        assertThat(problem(readme, "docs/rules.md#fields")).isNull();
        assertThat(problem(readme, "docs/")).isNull();
    }

    @Test
    void anchorsAreGitHubsSlugsOfTheHeadings() {
        assertThat(slug("Traefik, Kong, APISIX, HAProxy (untested)")).isEqualTo("traefik-kong-apisix-haproxy-untested");
        assertThat(slug("The Java client (`client`, artifact `tollgate-client`)")).isEqualTo("the-java-client-client-artifact-tollgate-client");
        assertThat(slug("From envoyproxy/ratelimit: its files as they are")).isEqualTo("from-envoyproxyratelimit-its-files-as-they-are");
        assertThat(slug("A cold pod's first check on each shard is enforced")).isEqualTo("a-cold-pods-first-check-on-each-shard-is-enforced");
        assertThat(slug("9. The control path at fleet scale: budget keys")).isEqualTo("9-the-control-path-at-fleet-scale-budget-keys");
        assertThat(slug("Read [the rules](rules.md) and **more**")).isEqualTo("read-the-rules-and-more");
    }

    private record Link(int line, String target) {
    }

    private String problem(Path file, String rawTarget) {
        String target = rawTarget.startsWith("<") && rawTarget.endsWith(">") ? rawTarget.substring(1, rawTarget.length() - 1) : rawTarget;
        if (target.startsWith("//") || SCHEME.matcher(target).find() || target.toLowerCase(Locale.ROOT).startsWith("www.")) {
            return "a link outside the repository; link a file in it, or name the source without a link";
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        Path resolved;
        if (path.isEmpty()) {
            resolved = file;
        } else {
            String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
            resolved = (decoded.startsWith("/") ? ROOT.resolve(decoded.substring(1)) : file.getParent().resolve(decoded)).normalize();
            if (!resolved.startsWith(ROOT)) {
                return "climbs out of the repository";
            }
            if (!Files.exists(resolved)) {
                return "no such file or folder in the repository";
            }
        }
        if (anchor != null && !anchor.isEmpty()) {
            if (!resolved.toString().endsWith(".md") || Files.isDirectory(resolved)) {
                return "an anchor on a file that has no Markdown headings";
            }
            String wanted = URLDecoder.decode(anchor.replace("+", "%2B"), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
            if (!anchors(resolved).contains(wanted)) {
                return "no heading with this anchor in " + ROOT.relativize(resolved);
            }
        }
        return null;
    }

    private List<Link> links(Path file) {
        List<Link> links = new ArrayList<>();
        for (Block block : prose(file)) {
            String text = CODE_SPAN.matcher(block.text()).replaceAll(match -> " ".repeat(match.group().length()));
            String rest = text;
            for (Pattern pattern : List.of(INLINE, DEFINITION, AUTOLINK, HTML)) {
                Matcher matcher = pattern.matcher(rest);
                StringBuilder left = new StringBuilder();
                while (matcher.find()) {
                    links.add(new Link(block.line(text, matcher.start()), matcher.group(1)));
                    matcher.appendReplacement(left, Matcher.quoteReplacement(" ".repeat(matcher.group().length())));
                }
                matcher.appendTail(left);
                rest = left.toString();
            }
            Matcher bare = BARE_URL.matcher(rest);
            while (bare.find()) {
                links.add(new Link(block.line(rest, bare.start()), bare.group()));
            }
        }
        return links;
    }

    /** A paragraph of prose (code spans may run over its lines), with the line it starts on. */
    private record Block(int firstLine, String text) {
        int line(String within, int offset) {
            int line = firstLine;
            for (int i = 0; i < offset && i < within.length(); i++) {
                if (within.charAt(i) == '\n') {
                    line++;
                }
            }
            return line;
        }
    }

    /** The file's paragraphs outside fenced code blocks. */
    private static List<Block> prose(Path file) {
        List<String> lines = lines(file);
        List<Block> blocks = new ArrayList<>();
        StringBuilder paragraph = new StringBuilder();
        int start = 1;
        String fence = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher opening = FENCE.matcher(line);
            if (fence != null) {
                if (opening.find() && opening.group(1).charAt(0) == fence.charAt(0) && opening.group(1).length() >= fence.length()
                        && line.trim().equals(opening.group(1))) {
                    fence = null;
                }
                continue;
            }
            if (opening.find()) {
                fence = opening.group(1);
            }
            if (fence != null || line.isBlank()) {
                if (!paragraph.isEmpty()) {
                    blocks.add(new Block(start, paragraph.toString()));
                    paragraph.setLength(0);
                }
                continue;
            }
            if (paragraph.isEmpty()) {
                start = i + 1;
            } else {
                paragraph.append('\n');
            }
            paragraph.append(line);
        }
        if (!paragraph.isEmpty()) {
            blocks.add(new Block(start, paragraph.toString()));
        }
        return blocks;
    }

    private Set<String> anchors(Path file) {
        return anchors.computeIfAbsent(file, f -> {
            Set<String> found = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            String fence = null;
            for (String line : lines(f)) {
                Matcher opening = FENCE.matcher(line);
                if (fence != null) {
                    if (opening.find() && opening.group(1).charAt(0) == fence.charAt(0) && line.trim().equals(opening.group(1))) {
                        fence = null;
                    }
                    continue;
                }
                if (opening.find()) {
                    fence = opening.group(1);
                    continue;
                }
                Matcher heading = HEADING.matcher(line);
                if (heading.matches()) {
                    String slug = slug(heading.group(2));
                    int n = seen.merge(slug, 1, Integer::sum) - 1;
                    found.add(n == 0 ? slug : slug + "-" + n);
                }
                Matcher html = HTML_ANCHOR.matcher(line);
                while (html.find()) {
                    found.add(html.group(1).toLowerCase(Locale.ROOT));
                }
            }
            return found;
        });
    }

    /** GitHub's anchor of a heading: its text as rendered, lower case, without punctuation, spaces as dashes. */
    static String slug(String heading) {
        String text = heading
                .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .replaceAll("<[^>]+>", "")
                .replace("`", "");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M}\\p{Pc}\\- ]", "").replace(' ', '-');
    }

    private static List<Path> markdownFiles() throws IOException {
        try (Stream<Path> walk = Files.walk(ROOT)) {
            return walk.filter(path -> path.toString().endsWith(".md") && Files.isRegularFile(path))
                    .filter(path -> {
                        for (Path part : ROOT.relativize(path)) {
                            String name = part.toString();
                            if (name.startsWith(".") || name.equals("target") || name.equals("node_modules")) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted()
                    .toList();
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
