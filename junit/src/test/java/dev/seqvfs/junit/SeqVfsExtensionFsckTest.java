package dev.seqvfs.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.seqvfs.engine.FsckDamage;
import dev.seqvfs.nio.SeqVfsFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * {@link SeqVfsExtension} fails a test whose file system the engine's invariant check ({@code
 * Fsck}) finds damaged, and passes the same test without the damage: {@link Damaging} is run
 * through the JUnit Platform launcher, in this JVM, and its results are read from the summary.
 */
class SeqVfsExtensionFsckTest {
    /** Set while this class runs {@link Damaging}; Surefire skips nested classes anyway. */
    static volatile boolean launched;

    /** The tests the launcher runs: one damages its file system, one does not. */
    @ExtendWith(SeqVfsExtension.class)
    static class Damaging {
        @Test
        void damaged(@TempSeqVfs SeqVfsFileSystem fs) throws IOException {
            Assumptions.assumeTrue(launched, "run only by SeqVfsExtensionFsckTest");
            Files.writeString(fs.getPath("/f"), "x");
            FsckDamage.addLinkWithoutName(fs.engine(), "f");
        }

        @Test
        void intact(@TempSeqVfs SeqVfsFileSystem fs) throws IOException {
            Assumptions.assumeTrue(launched, "run only by SeqVfsExtensionFsckTest");
            Files.writeString(fs.getPath("/f"), "x");
        }
    }

    @Test
    void aTestThatDamagesItsFileSystem_fails_withFsckSaying() {
        LauncherDiscoveryRequest request =
                LauncherDiscoveryRequestBuilder.request()
                        .selectors(selectClass(Damaging.class))
                        .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        Launcher launcher = LauncherFactory.create();
        launched = true;
        try {
            launcher.execute(request, listener);
        } finally {
            launched = false;
        }
        TestExecutionSummary s = listener.getSummary();
        assertEquals(2, s.getTestsStartedCount());
        assertEquals(1, s.getTestsSucceededCount(), "intact passes");
        List<TestExecutionSummary.Failure> failures = s.getFailures();
        assertEquals(1, failures.size());
        TestExecutionSummary.Failure f = failures.get(0);
        assertTrue(f.getTestIdentifier().getDisplayName().startsWith("damaged"), f.toString());
        Throwable e = f.getException();
        assertTrue(e instanceof AssertionError, e.toString());
        assertTrue(e.getMessage().contains("Fsck"), e.getMessage());
        assertTrue(e.getMessage().contains("has nlink 2 but 1 names"), e.getMessage());
    }
}
