package dev.seqvfs.persist.log;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Runs {@code pekko-persistence-tck}'s specs (ScalaTest suites) on the segment log's plugins
 * through ScalaTest's own runner, from JUnit 5 (so {@code mvn verify} runs them with the rest):
 * each fails this test if any of its cases fails (the runner prints each case and its failure on
 * standard output).
 */
class LogPluginTckTest {
    private static boolean run(Class<?> spec) {
        return org.scalatest.tools.Runner.run(new String[] {"-oW", "-s", spec.getName()});
    }

    @Test
    void journal_passesTheJavaJournalSpec() {
        assertTrue(run(LogJournalSpec.class), "JavaJournalSpec failed: see its output above");
    }

    @Test
    void snapshotStore_passesTheJavaSnapshotStoreSpec() {
        assertTrue(
                run(LogSnapshotStoreSpec.class),
                "JavaSnapshotStoreSpec failed: see its output above");
    }
}
