package dev.seqvfs.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Specifies {@link Mode#toString(int)}: the mode column of {@code ls -l}. */
class ModeTest {
    @Test
    void toString_eachFileType_startsWithItsLsLetter() {
        assertEquals("-rw-r--r--", Mode.toString(Mode.S_IFREG | 0644));
        assertEquals("drwxr-xr-x", Mode.toString(Mode.S_IFDIR | 0755));
        assertEquals("lrwxrwxrwx", Mode.toString(Mode.S_IFLNK | 0777));
        assertEquals("prw-------", Mode.toString(Mode.S_IFIFO | 0600));
        assertEquals("srwxrwxrwx", Mode.toString(Mode.S_IFSOCK | 0777));
        assertEquals("crw-rw-rw-", Mode.toString(Mode.S_IFCHR | 0666));
        assertEquals("brw-rw----", Mode.toString(Mode.S_IFBLK | 0660));
    }

    @Test
    void toString_setIdAndStickyBits_showAsSAndT() {
        assertEquals(
                "-rwsr-sr-x", Mode.toString(Mode.S_IFREG | Mode.S_ISUID | Mode.S_ISGID | 0755));
        assertEquals("-rwSr--r--", Mode.toString(Mode.S_IFREG | Mode.S_ISUID | 0644));
        assertEquals("drwxrwxrwt", Mode.toString(Mode.S_IFDIR | Mode.S_ISVTX | 0777));
    }

    @Test
    void toString_noTypeBits_showsAQuestionMark() {
        assertEquals("?rw-r--r--", Mode.toString(0644));
    }
}
