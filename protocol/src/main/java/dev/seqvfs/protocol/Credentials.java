package dev.seqvfs.protocol;

import java.util.Arrays;

/**
 * The identity a task acts with: effective user and group ids and the supplementary
 * groups, as {@code credentials(7)} describes them. SeqVFS models one id per kind (real,
 * effective and file-system ids are the same).
 *
 * <p>Immutable; thread-safe. {@code uid == 0} is root, who passes every read and write
 * permission check and every search check ({@code CAP_DAC_OVERRIDE}), and may execute a
 * file only if some execute bit is set.
 *
 * @param uid user id
 * @param gid primary group id
 * @param groups supplementary group ids (copied, sorted)
 */
public record Credentials(int uid, int gid, int[] groups) {
    /** The superuser, uid 0 and gid 0. */
    public static final Credentials ROOT = new Credentials(0, 0, new int[0]);

    /** Copies and sorts the supplementary groups. */
    public Credentials {
        groups = groups == null ? new int[0] : groups.clone();
        Arrays.sort(groups);
    }

    /** Creates credentials with no supplementary groups. */
    public static Credentials of(int uid, int gid, int... groups) {
        return new Credentials(uid, gid, groups);
    }

    /** Returns whether these are root's credentials. */
    public boolean isRoot() {
        return uid == 0;
    }

    /** Returns whether {@code g} is the primary group or a supplementary group. */
    public boolean inGroup(int g) {
        return g == gid || Arrays.binarySearch(groups, g) >= 0;
    }

    /** Returns a copy of the supplementary groups. */
    @Override
    public int[] groups() {
        return groups.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Credentials c && c.uid == uid && c.gid == gid
                && Arrays.equals(c.groups, groups);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * uid + gid) + Arrays.hashCode(groups);
    }

    @Override
    public String toString() {
        return "Credentials[uid=" + uid + ", gid=" + gid + ", groups=" + Arrays.toString(groups) + "]";
    }
}
