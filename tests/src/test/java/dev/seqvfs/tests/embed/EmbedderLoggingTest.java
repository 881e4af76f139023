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

    @Test
    void embedderWithOwnLogbackXml_getsNoStatusLinesAndNoDuplicateWarning(@TempDir Path dir)
            throws Exception {
        Files.writeString(dir.resolve("logback.xml"), EMBEDDER_LOGBACK);
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
                        30_000);
        assertTrue(r.exited(), r.toString());
        assertEquals(0, r.status(), r.toString());
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
}
