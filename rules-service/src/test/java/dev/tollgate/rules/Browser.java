package dev.tollgate.rules;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Debian's headless Chromium driven by its chromedriver, for the console's end-to-end tests. Never
 * downloads a browser or a driver (Selenium Manager is not asked): without the two packages the tests
 * are skipped, and say so loudly; under {@code CI=true} they fail instead, since {@code .ci/run} installs
 * both and a green run with nothing run hid that the console was untested.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of(System.getProperty("tollgate.test.chromium", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER = Path.of(System.getProperty("tollgate.test.chromedriver", "/usr/bin/chromedriver"));
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    private final ChromeDriver driver;
    private final Path profile;
    private final String base;

    private Browser(String base) {
        this.base = base;
        try {
            this.profile = Files.createTempDirectory("tollgate-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,900", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        try {
            this.driver = new ChromeDriver(service, options);
        } catch (WebDriverException e) {
            deleteProfile();
            throw new IllegalStateException("could not start " + CHROMIUM + " through " + CHROMEDRIVER
                    + " (both must be of one version, as Debian's packages are: apt-get install -y chromium chromium-driver)", e);
        }
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
    }

    /**
     * Skips the calling tests, loudly, when Chromium or chromedriver is not installed; fails them under
     * {@code CI=true}, where {@code .ci/run} has installed both, so a missing browser is a red run.
     */
    static void assumeInstalled() {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (installed) {
            return;
        }
        String needed = "the console's browser tests need Debian's chromium and chromium-driver ("
                + CHROMIUM + ", " + CHROMEDRIVER + "): apt-get install -y chromium chromium-driver";
        if (inCi()) {
            Assertions.fail("CI=true, and " + needed + " (.ci/run installs them as root or with sudo)");
        }
        String message = "SKIPPED: " + needed;
        System.err.println("\n*** " + message + " ***\n");
        Assumptions.assumeTrue(false, message);
    }

    /** CI services set {@code CI=true}; the project's CI runs {@code .ci/run} with it. */
    static boolean inCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    static Browser open(String base) {
        return new Browser(base);
    }

    ChromeDriver driver() {
        return driver;
    }

    void go(String path) {
        driver.get(base + path);
    }

    WebElement find(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    /**
     * Waits (up to {@code seconds}) until the condition holds, then answers what it answered. The console's polled
     * parts swap themselves while a condition reads them: an element gone, gone stale, or caught half-way out of the
     * document (which Chromium reports as an unknown error) means "not yet"; the last such error is the timeout's cause.
     */
    <T> T await(int seconds, Function<ChromeDriver, T> condition) {
        return new WebDriverWait(driver, Duration.ofSeconds(seconds))
                .ignoring(WebDriverException.class)
                .until(ignored -> condition.apply(driver));
    }

    /** The text of the element {@code css} selects, read again if a poll swaps the element while it is read. */
    String text(String css) {
        return await(10, d -> d.findElement(By.cssSelector(css)).getText());
    }

    /**
     * Waits until the page that {@code action} leads to is in place, whether htmx swapped it in or the browser
     * loaded it. The old page's {@code main} is marked first; done is a {@code main} without the mark in a loaded
     * document. Asking whether the old element went stale raced the swap: Chromium answers a node caught half-way
     * out of the document with an "unknown error" rather than a stale reference. The mark is read by script instead.
     */
    void andWaitForNewPage(Runnable action) {
        driver.executeScript("document.querySelector('main').setAttribute('data-old-page', '')");
        action.run();
        await(30, d -> Boolean.TRUE.equals(d.executeScript("""
                const main = document.querySelector('main');
                return document.readyState === 'complete' && main !== null && !main.hasAttribute('data-old-page');""")));
    }

    void signIn(String token) {
        driver.manage().deleteAllCookies();
        go("/console/login");
        find("#token").sendKeys(token);
        andWaitForNewPage(() -> find("#token-sign-in button").click());
    }

    /** Saves the window as {@code target/console-screenshots/<name>.png}. */
    Path screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            // the whole page, not only the laptop-sized window: grow the window to the page's height for the shot
            Object height = driver.executeScript("return document.documentElement.scrollHeight");
            int pageHeight = Math.min(4000, Math.max(900, ((Number) height).intValue()));
            driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, pageHeight));
            File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 900));
            Path saved = SCREENSHOTS.resolve(name + ".png");
            Files.copy(shot.toPath(), saved, StandardCopyOption.REPLACE_EXISTING);
            return saved;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            deleteProfile();
        }
    }

    private void deleteProfile() {
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // a temporary profile left behind is harmless
        }
    }
}
