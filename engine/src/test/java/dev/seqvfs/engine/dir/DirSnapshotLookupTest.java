package dev.seqvfs.engine.dir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOwner;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Specifies {@link DirSnapshot}'s lookups, by {@code String} and by a range of a longer string
 * ({@code lookup(path, off, end, hash)}, the path walk's), against a {@code java.util.HashMap}
 * model: names in internal form (one char per byte, so {@code '\u0080'..'\u00ff'} for non-ASCII
 * UTF-8 and surrogateescape bytes), names whose {@code String.hashCode()} collide ({@code "Aa"} and
 * {@code "BB"} blocks), and the components a path walk never looks up ({@code "."}, {@code ".."},
 * the empty name), which no directory holds. Old versions must answer as they did when they were
 * current.
 */
class DirSnapshotLookupTest {
    /** Names that all share one hash code: every string of n blocks from {"Aa", "BB"}. */
    private static List<String> colliding(int blocks) {
        List<String> out = new ArrayList<>();
        for (int m = 0; m < 1 << blocks; m++) {
            StringBuilder sb = new StringBuilder();
            for (int b = 0; b < blocks; b++) {
                sb.append((m >> b & 1) == 0 ? "Aa" : "BB");
            }
            out.add(sb.toString());
        }
        return out;
    }

    private static final InodeOwner OWNER =
            new InodeOwner() {
                @Override
                public long dev() {
                    return 1;
                }

                @Override
                public long now() {
                    return 0;
                }

                @Override
                public int blockSize() {
                    return 4096;
                }

                @Override
                public void chargeBytes(long bytes, dev.seqvfs.protocol.Syscall op) {}

                @Override
                public void unchargeBytes(long bytes) {}

                @Override
                public long availableBytes() {
                    return Long.MAX_VALUE;
                }

                @Override
                public void inodeFreed(Inode inode) {}
            };

    /** A regular file: lookups only compare names, the inode is carried. */
    private static Inode file() {
        return new RegularInode(
                1,
                OWNER,
                InodeOperations.GENERIC,
                FileOperations.NONE,
                InodeAttrs.create(Mode.S_IFREG | 0644, 1, 0, 0, 0, 0, 0));
    }

    /**
     * An inode whose type is a directory, for {@link DirSnapshot#subdirs()} (a snapshot only reads
     * its entries' types).
     */
    private static Inode dirLike() {
        return new SpecialInode(
                2,
                OWNER,
                InodeOperations.GENERIC,
                FileOperations.NONE,
                InodeAttrs.create(Mode.S_IFDIR | 0755, 2, 0, 0, 0, 0, 0));
    }

    /**
     * A directory that grows past the small (array) form's bound and shrinks below half of it,
     * again and again, answers in both forms as a model does: lookups (by string and by range),
     * size, subdirectory count, the cookie order of a listing and a listing resumed after any
     * cookie, and old versions keep their answers across a change of form.
     */
    @Test
    void withWithout_acrossTheSmallFormsBound_matchModelInBothForms() {
        List<String> pool = new ArrayList<>(colliding(2)); // 4 names of one hash code
        for (int i = 0; i < 14; i++) {
            pool.add("f" + i);
        }
        pool.add("a-name-longer-than-sixteen-chars");
        for (long seed = 1; seed <= 30; seed++) {
            Random rnd = new Random(seed);
            DirSnapshot s = DirSnapshot.empty();
            // name -> dentry, in cookie order (a re-bound name moves to the end)
            java.util.LinkedHashMap<String, Dentry> model = new java.util.LinkedHashMap<>();
            List<DirSnapshot> versions = new ArrayList<>();
            List<List<Dentry>> listings = new ArrayList<>();
            int sizes = 0;
            for (int step = 0; step < 400; step++) {
                String n = pool.get(rnd.nextInt(pool.size()));
                // grow on average while small, shrink while large: the form changes often
                boolean remove = rnd.nextInt(10) < (s.size() > DirSnapshot.SMALL_MAX ? 7 : 3);
                if (remove) {
                    s = s.without(n);
                    model.remove(n);
                } else {
                    s = s.with(n, rnd.nextBoolean() ? file() : dirLike());
                    model.remove(n);
                    model.put(n, s.lookup(n));
                }
                sizes |= 1 << Math.min(s.size(), 30);
                assertEquals(model.size(), s.size());
                assertEquals(
                        model.values().stream()
                                .filter(d -> d.inode().type() == FileType.DIRECTORY)
                                .count(),
                        s.subdirs());
                List<Dentry> listing = s.entries();
                assertEquals(new ArrayList<>(model.values()), listing, "cookie order");
                for (int k = 0; k < listing.size(); k++) {
                    assertEquals(
                            listing.subList(k + 1, listing.size()),
                            s.entriesAfter(listing.get(k).cookie(), Integer.MAX_VALUE));
                }
                if (!listing.isEmpty()) {
                    assertEquals(listing.subList(0, 1), s.entriesAfter(0, 1));
                }
                for (String p : pool) {
                    String path = "/x/" + p + "/y";
                    assertSame(model.get(p), s.lookup(p), p);
                    assertSame(model.get(p), s.lookup(path, 3, 3 + p.length(), p.hashCode()), p);
                }
                if (step % 25 == 0) {
                    versions.add(s);
                    listings.add(listing);
                }
            }
            for (int v = 0; v < versions.size(); v++) {
                assertEquals(listings.get(v), versions.get(v).entries(), "old version");
            }
            assertNotEquals(0, sizes >> (DirSnapshot.SMALL_MAX + 1), "grew past the bound");
        }
    }

    /**
     * A fork's view for these tests: the twin of each of {@code source}'s raw entries (a new dentry
     * on a new inode, made once), every other entry shown as itself.
     */
    private static final class TestTwins implements DirSnapshot.Twins {
        final java.util.Set<Dentry> shared =
                java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        final Map<Dentry, Dentry> made = new java.util.IdentityHashMap<>();

        TestTwins(DirSnapshot source) {
            shared.addAll(source.entries());
        }

        @Override
        public synchronized Dentry twinOf(Dentry d) {
            if (!shared.contains(d)) {
                return d;
            }
            return made.computeIfAbsent(
                    d,
                    x ->
                            new Dentry(
                                    x.name(),
                                    x.inode().type() == FileType.DIRECTORY ? dirLike() : file(),
                                    x.cookie(),
                                    x.flags()));
        }
    }

    /**
     * A fork's copy ({@code forked}) of a large directory: the same names, cookies, order and
     * version, each entry shown as its twin, the same one by lookup and by listing, made on first
     * sight only; the source still shows its own.
     */
    @Test
    void forked_showsEachEntryAsItsTwin_madeOnFirstSight_inTheSourcesOrder() {
        DirSnapshot s = DirSnapshot.empty();
        List<String> names = new ArrayList<>(colliding(3));
        for (int i = 0; i < 200; i++) {
            names.add("n" + i);
        }
        for (String n : names) {
            s = s.with(n, file());
        }
        s = s.without("n7").with("n7", file()); // a later cookie for n7
        TestTwins v = new TestTwins(s);
        DirSnapshot t = DirSnapshot.forked(s, v);
        assertEquals(s.size(), t.size());
        assertEquals(s.seq(), t.seq());
        assertEquals(0, t.gen());
        Dentry n5 = t.lookup("n5");
        assertEquals(1, v.made.size(), "only what was looked up has a twin");
        assertSame(n5, t.lookup("n5"));
        assertSame(n5, t.lookup("/x/n5/", 3, 5, "n5".hashCode()));
        List<Dentry> before = s.entries();
        List<Dentry> after = t.entries();
        assertEquals(before.size(), after.size());
        for (int k = 0; k < before.size(); k++) {
            Dentry d = before.get(k);
            Dentry c = after.get(k);
            assertEquals(d.name(), c.name());
            assertEquals(d.cookie(), c.cookie());
            assertNotEquals(d.inode(), c.inode());
            assertSame(c, t.lookup(d.name()), "lookup and listing show the same twin");
            assertSame(d, s.lookup(d.name()), "the source is unchanged");
        }
        assertNull(t.lookup("n999"));
    }

    /**
     * The fork's changes to a forked directory keep its view: an entry it still shares is the same
     * twin in every later version, its own entries are shown as themselves, and a directory that
     * shrinks to the small form (its entries copied into one array) still shows the same twins.
     */
    @Test
    void forked_changedByTheFork_keepsItsTwins_andShowsItsOwnEntries() {
        DirSnapshot s = DirSnapshot.empty();
        for (int i = 0; i < 40; i++) {
            s = s.with("n" + i, i % 3 == 0 ? dirLike() : file());
        }
        DirSnapshot t = DirSnapshot.forked(s, new TestTwins(s));
        Dentry n5 = t.lookup("n5");
        Inode own = file();
        DirSnapshot t2 = t.with("new", own).without("n3").with("n6", own);
        assertSame(n5, t2.lookup("n5"));
        assertSame(own, t2.lookup("new").inode());
        assertSame(own, t2.lookup("n6").inode(), "a shared name replaced by the fork's own");
        assertNull(t2.lookup("n3"));
        assertEquals(s.subdirs() - 1 /* n3 */ - 1 /* n6 */, t2.subdirs());
        DirSnapshot small = t2;
        for (int i = 7; i < 40; i++) {
            small = small.without("n" + i);
        }
        assertEquals(List.of("n0", "n1", "n2", "n4", "n5", "new", "n6"), namesOf(small));
        assertSame(n5, small.lookup("n5"), "the same twin after the move to the small form");
        assertSame(small.lookup("n0"), small.entries().get(0));
    }

    /** The same in a small directory: twins, their order, subdirectories counted. */
    @Test
    void forked_smallDirectory_showsTwinsInOrder() {
        DirSnapshot s = DirSnapshot.empty();
        for (int i = 0; i < DirSnapshot.SMALL_MAX; i++) {
            s = s.with("n" + i, i % 2 == 0 ? file() : dirLike());
        }
        DirSnapshot t = DirSnapshot.forked(s, new TestTwins(s));
        assertEquals(s.subdirs(), t.subdirs());
        List<Dentry> before = s.entries();
        List<Dentry> after = t.entries();
        for (int k = 0; k < after.size(); k++) {
            assertEquals(before.get(k).name(), after.get(k).name());
            assertEquals(before.get(k).cookie(), after.get(k).cookie());
            assertEquals(before.get(k).inode().type(), after.get(k).inode().type());
            assertNotEquals(before.get(k).inode(), after.get(k).inode());
            assertSame(after.get(k), t.lookup(after.get(k).name()));
        }
    }

    private static List<String> namesOf(DirSnapshot s) {
        List<String> out = new ArrayList<>();
        for (Dentry d : s.entries()) {
            out.add(d.name());
        }
        return out;
    }

    @Test
    void lookupRange_componentInsidePath_findsSameDentryAsLookupOfString() {
        DirSnapshot s =
                DirSnapshot.empty()
                        .with("java.base", file())
                        .with("src", file())
                        .with("\u00e9t\u00e9", file());
        String path = "/src//java.base/\u00e9t\u00e9/";
        int off = path.indexOf("java.base");
        int end = off + "java.base".length();
        assertSame(
                s.lookup("java.base"), s.lookup(path, off, end, DirSnapshot.hash(path, off, end)));
        int e = path.indexOf('\u00e9');
        assertSame(
                s.lookup("\u00e9t\u00e9"),
                s.lookup(path, e, e + 3, DirSnapshot.hash(path, e, e + 3)));
        assertSame(s.lookup("src"), s.lookup(path, 1, 4, "src".hashCode()));
    }

    @Test
    void hash_ofRange_equalsStringHashCodeOfSubstring() {
        String path = "/a/\u00ff\u0080x/AaBB//";
        for (int off = 0; off <= path.length(); off++) {
            for (int end = off; end <= path.length(); end++) {
                assertEquals(path.substring(off, end).hashCode(), DirSnapshot.hash(path, off, end));
            }
        }
    }

    /**
     * A component with a char above {@code 0xFF} is not in internal form and equals no stored name,
     * even one whose chars have the same low bytes; a name of {@code 0xFF} chars, whose packed word
     * is all ones, is found, by string, by range, and by range with the walk's packed words.
     */
    @Test
    void lookupRange_charAboveFF_matchesNoName_andAllOnesWordsMatch() {
        String ff = "\u00ff".repeat(20);
        DirSnapshot s = DirSnapshot.empty().with("A", file()).with(ff, file());
        String wide = "/\u0141/";
        assertNull(s.lookup(wide, 1, 2, DirSnapshot.hash(wide, 1, 2)));
        assertNull(s.lookup("\u0141"));
        String path = "/" + ff + "/";
        Dentry d = s.lookup(ff);
        assertSame(d, s.lookup(path, 1, 21, ff.hashCode()));
        assertSame(d, s.lookup(path, 1, 21, ff.hashCode(), -1L, -1L));
        assertNull(s.lookup(path, 1, 21, ff.hashCode(), -1L, 0L), "a wrong packed word misses");
    }

    @Test
    void lookupRange_prefixOrExtensionOfAName_isAbsent() {
        DirSnapshot s = DirSnapshot.empty().with("abc", file());
        String path = "/abcd/ab/abc";
        assertNull(s.lookup(path, 1, 5, DirSnapshot.hash(path, 1, 5)));
        assertNull(s.lookup(path, 6, 8, DirSnapshot.hash(path, 6, 8)));
        assertEquals("abc", s.lookup(path, 9, 12, DirSnapshot.hash(path, 9, 12)).name());
    }

    @Test
    void lookupRange_dotDotdotAndEmptyComponents_areNeverEntries() {
        DirSnapshot s =
                DirSnapshot.empty().with("a", file()).with("..a", file()).with(".a", file());
        String path = "/./../a//";
        assertNull(s.lookup(path, 1, 2, DirSnapshot.hash(path, 1, 2)));
        assertNull(s.lookup(path, 3, 5, DirSnapshot.hash(path, 3, 5)));
        assertNull(s.lookup(path, 8, 8, 0));
        assertNull(s.lookup(path, 9, 9, 0));
        assertEquals("a", s.lookup(path, 6, 7, DirSnapshot.hash(path, 6, 7)).name());
    }

    @Test
    void lookupRange_rangeOutsideString_throwsIndexOutOfBounds() {
        DirSnapshot s = DirSnapshot.empty().with("a", file());
        assertThrows(IndexOutOfBoundsException.class, () -> s.lookup("/a", 1, 3, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> s.lookup("/a", 2, 1, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> s.lookup("/a", -1, 1, 0));
    }

    @Test
    void lookup_namesWithEqualHashCodes_eachFindsItsOwnDentry() {
        List<String> names = colliding(4);
        assertEquals(1, names.stream().mapToInt(String::hashCode).distinct().count());
        DirSnapshot s = DirSnapshot.empty();
        for (String n : names.subList(0, 15)) {
            s = s.with(n, file());
        }
        String absent = names.get(15);
        String path = "x/" + absent + "/" + String.join("/", names.subList(0, 15));
        assertNull(s.lookup(absent));
        assertNull(s.lookup(path, 2, 2 + absent.length(), absent.hashCode()));
        int off = 3 + absent.length();
        for (String n : names.subList(0, 15)) {
            Dentry d = s.lookup(path, off, off + n.length(), n.hashCode());
            assertEquals(n, d.name());
            assertSame(s.lookup(n), d);
            off += n.length() + 1;
        }
        // removing them one by one leaves the rest findable (collision node shrinks to a leaf)
        for (int i = 0; i < 15; i++) {
            s = s.without(names.get(i));
            assertNull(s.lookup(names.get(i)));
            for (int j = i + 1; j < 15; j++) {
                assertEquals(names.get(j), s.lookup(names.get(j)).name());
            }
            assertEquals(14 - i, s.size());
        }
    }

    @Test
    void withWithout_randomNames_matchHashMapModel_andOldVersionsKeepTheirAnswers() {
        List<String> pool = new ArrayList<>(colliding(3));
        Random rnd = new Random(7);
        for (int i = 0; i < 400; i++) {
            StringBuilder sb = new StringBuilder();
            int len = 1 + rnd.nextInt(12);
            for (int k = 0; k < len; k++) {
                // internal form: bytes as chars, '/' and NUL excluded, high bytes included
                char c;
                do {
                    c = (char) (1 + rnd.nextInt(255));
                } while (c == '/');
                sb.append(c);
            }
            pool.add(sb.toString());
        }
        for (long seed = 1; seed <= 20; seed++) {
            rnd = new Random(seed);
            DirSnapshot s = DirSnapshot.empty();
            Map<String, Dentry> model = new HashMap<>();
            List<DirSnapshot> versions = new ArrayList<>();
            List<Map<String, Dentry>> models = new ArrayList<>();
            for (int step = 0; step < 600; step++) {
                String n = pool.get(rnd.nextInt(pool.size()));
                if (rnd.nextInt(3) == 0) {
                    s = s.without(n);
                    model.remove(n);
                } else {
                    s = s.with(n, file());
                    model.put(n, s.lookup(n));
                }
                assertEquals(model.size(), s.size());
                if (step % 50 == 0) {
                    versions.add(s);
                    models.add(new HashMap<>(model));
                }
            }
            for (int v = 0; v < versions.size(); v++) {
                DirSnapshot old = versions.get(v);
                Map<String, Dentry> m = models.get(v);
                for (String n : pool) {
                    String path = "//" + n + "/";
                    Dentry byRange = old.lookup(path, 2, 2 + n.length(), n.hashCode());
                    assertSame(m.get(n), old.lookup(n), n);
                    assertSame(m.get(n), byRange, n);
                }
            }
            assertEquals(model.size(), s.entries().size());
        }
    }

    @Test
    void with_sameNameAgain_replacesDentryAndKeepsSize() {
        DirSnapshot a = DirSnapshot.empty().with("AaAa", file()).with("BBBB", file());
        DirSnapshot b = a.with("AaAa", file());
        assertEquals(2, b.size());
        assertNotEquals(a.lookup("AaAa"), b.lookup("AaAa"));
        assertSame(a.lookup("BBBB"), b.lookup("BBBB"));
        assertSame(a, a.without("AaBB"));
    }
}
