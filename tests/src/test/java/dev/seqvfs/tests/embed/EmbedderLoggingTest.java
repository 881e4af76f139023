package dev.seqvfs.tests.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.tests.support.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedder's own {@code logback.xml} is the only one Logback finds: the engine's jars carry no
 * Logback configuration (a newcomer's application printed Logback's ~20 status lines and "Resource
 * [logback.xml] occurs multiple times on the classpath", because the config module shipped one).
 *
 * <p>Nor does Pekko print below WARNING through it (README: "Pekko's own log level is WARNING").
 *
 * <p>The child's classpath is this module's test classpath (the engine, its dependencies, Logback)
 * less the test classes and their {@code logback-test.xml}, plus one directory holding the
 * embedder's {@code logback.xml} and its main class.
 */
@Timeout(180)
class EmbedderLoggingTest {
    private static final String EMBEDDER_LOGBACK =
            """
            <configuration>
              <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                <target>System.err</target>
                <encoder><pattern>EMBEDDER %level %logger - %msg%n</pattern></encoder>
              </appender>
              <root level="INFO"><appender-ref ref="OUT"/></root>
            </configuration>
            """;

    /**
     * An embedder that opens Pekko's loggers up to DEBUG in its own {@code logback.xml}: what
     * reaches SLF4J from Pekko is still what {@code pekko.loglevel} passes.
     */
    private static final String EMBEDDER_LOGBACK_PEKKO_DEBUG =
            EMBEDDER_LOGBACK.replace(
                    "<root level=\"INFO\">",
                    "<logger name=\"org.apache.pekko\" level=\"DEBUG\"/>\n  <root level=\"INFO\">");

    /** Runs {@link EmbedderLoggingMain} with {@code logbackXml} as the embedder's own. */
    private static ChildJvm.Result runEmbedder(Path dir, String logbackXml, String... args)
            throws Exception {
        Files.writeString(dir.resolve("logback.xml"), logbackXml);
        ChildJvm.copyClass(EmbedderLoggingMain.class, dir);
        List<String> cp = new ArrayList<>(List.of(dir.toString()));
        for (String e : ChildJvm.testClasspath()) {
            if (!e.replace('\\', '/').endsWith("/test-classes")
                    && !e.replace('\\', '/').endsWith("/test-classes/")) {
                cp.add(e);
            }
        }
        ChildJvm.Result r =
                ChildJvm.run(
                        cp,
                        EmbedderLoggingMain.class.getName(),
                        EmbedderLoggingMain.MARKER,
                        30_000,
                        args);
        assertTrue(r.exited(), r.toString());
        assertEquals(0, r.status(), r.toString());
        return r;
    }

    /** Returns the lines of {@code stderr} that Pekko logged below WARN. */
    private static List<String> pekkoBelowWarn(String stderr) {
        return stderr.lines()
                .filter(
                        l ->
                                l.startsWith("EMBEDDER INFO org.apache.pekko")
                                        || l.startsWith("EMBEDDER DEBUG org.apache.pekko")
                                        || l.startsWith("EMBEDDER TRACE org.apache.pekko"))
                .toList();
    }

    @Test
    void embedderWithOwnLogbackXml_getsNoStatusLinesAndNoDuplicateWarning(@TempDir Path dir)
            throws Exception {
        ChildJvm.Result r = runEmbedder(dir, EMBEDDER_LOGBACK);
        // Logback prints its status lines on stdout once it sees a warning of its own
        assertEquals(
                EmbedderLoggingMain.MARKER + "\n",
                r.stdout(),
                "nothing but the marker on stdout: " + r);
        assertTrue(
                r.stderr().contains("EMBEDDER INFO embedder - embedder says hello"),
                "the embedder's logback.xml is in force: " + r.stderr());
        assertFalse(r.stderr().contains("occurs multiple times"), r.stderr());
        assertFalse(
                r.stderr().contains("ch.qos.logback"), "no Logback status lines: " + r.stderr());
    }

    /**
     * README: "Pekko's own log level is WARNING". An embedder whose {@code logback.xml} logs at
     * INFO saw {@code INFO o.a.p.e.s.Slf4jLogger - Slf4jLogger started}: Pekko's SLF4J logger actor
     * logs that line at start-up straight to SLF4J, whatever {@code pekko.loglevel} says, so the
     * engine's actor systems use {@code QuietSlf4jLogger}, which does not. The child also waits for
     * its actor system to stop: Pekko's shutdown logs at INFO and DEBUG, which {@code
     * pekko.loglevel = WARNING} keeps from SLF4J, and nothing is printed on stdout ({@code
     * stdout-loglevel = OFF}).
     */
    @Test
    void embedderLoggingPekkoAtDebug_seesNothingFromPekkoBelowWarn_fromStartToStop(
            @TempDir Path dir) throws Exception {
        ChildJvm.Result r =
                runEmbedder(dir, EMBEDDER_LOGBACK_PEKKO_DEBUG, EmbedderLoggingMain.UNTIL_STOPPED);
        assertTrue(
                r.stderr().contains("EMBEDDER INFO embedder - embedder says hello"),
                "the embedder's logback.xml is in force: " + r.stderr());
        assertEquals(List.of(), pekkoBelowWarn(r.stderr()), r.stderr());
        assertEquals(
                EmbedderLoggingMain.MARKER + "\n",
                r.stdout(),
                "nothing from Pekko on stdout either: " + r);
    }
}
