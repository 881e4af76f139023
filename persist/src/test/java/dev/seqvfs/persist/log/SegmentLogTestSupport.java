package dev.seqvfs.persist.log;

import java.nio.file.Path;

/** Helpers for the log's tests. */
final class SegmentLogTestSupport {
    private SegmentLogTestSupport() {}

    /** {@return the number of segment file {@code p}} */
    static long number(Path p) {
        return Segment.number(p.getFileName().toString());
    }
}
