package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Specifies {@link Wildcard}: SMB search patterns as [MS-FSA] 2.1.4.4 defines them ({@code *},
 * {@code ?}, and the DOS wildcards {@code <} DOS_STAR, {@code >} DOS_QM, {@code "} DOS_DOT),
 * matched ignoring case.
 */
class WildcardTest {
    @ParameterizedTest(name = "''{0}'' vs ''{1}'' -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "*        | anything.txt   | true",
                "*        | .              | true",
                "*        | ..             | true",
                "FILLER.* | filler.000     | true",
                "FILLER.* | filler         | false",
                "FILLER.* | fillers.000    | false",
                "?.TXT    | a.txt          | true",
                "?.TXT    | ab.txt         | false",
                "<.JNK    | WORD.JNK       | true",
                "<.JNK    | a.b.jnk        | true",
                "<.JNK    | a.jnk.txt      | false",
                "<.JNK    | JNK            | false",
                "<.JNK    | .              | false",
                "<.JNK    | ..             | false",
                "<        | no-dot         | true",
                "A>>.TXT  | A.TXT          | true",
                "A>>.TXT  | AB.TXT         | true",
                "A>>.TXT  | ABC.TXT        | true",
                "A>>.TXT  | ABCD.TXT       | false",
                "FILE\"   | FILE           | true",
                "FILE\"   | FILE.          | true",
                "FILE\"   | FILEX          | false",
                "exact    | EXACT          | true",
                "exact    | exactly        | false",
            })
    void matches_followsMsFsaAndIgnoresCase(String pattern, String name, boolean expected) {
        assertEquals(expected, Wildcard.matches(pattern, name));
    }

    @Test
    void hasWildcard_findsTheCharactersDbenchLooksFor() {
        for (String p : new String[] {"a*", "a?", "<.JNK", "a>", "a\""}) {
            assertTrue(Wildcard.hasWildcard(p), p);
        }
        assertFalse(Wildcard.hasWildcard("/clients/client1/plain.txt"));
    }
}
