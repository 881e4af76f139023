package dev.seqvfs.nio;

import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;

/**
 * Users and groups by number: SeqVFS has no user database, so a principal's name is its id in
 * decimal ({@code "1000"}), except 0, which is {@code "root"} as on every Linux host (the JDK's
 * {@code UnixUserPrincipals} also names an id it cannot look up by its number). Immutable.
 */
final class Principals {
    private Principals() {}

    static final UserPrincipalLookupService LOOKUP =
            new UserPrincipalLookupService() {
                @Override
                public UserPrincipal lookupPrincipalByName(String name)
                        throws UserPrincipalNotFoundException {
                    return user(parse(name));
                }

                @Override
                public GroupPrincipal lookupPrincipalByGroupName(String group)
                        throws UserPrincipalNotFoundException {
                    return group(parse(group));
                }
            };

    static int parse(String name) throws UserPrincipalNotFoundException {
        if (name.equals("root")) {
            return 0;
        }
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            throw new UserPrincipalNotFoundException(name);
        }
    }

    static User user(int uid) {
        return new User(uid);
    }

    static Group group(int gid) {
        return new Group(gid);
    }

    static String name(int id) {
        return id == 0 ? "root" : Integer.toString(id);
    }

    /** A user by id. */
    record User(int id) implements UserPrincipal {
        @Override
        public String getName() {
            return name(id);
        }

        @Override
        public String toString() {
            return getName();
        }
    }

    /** A group by id. */
    record Group(int id) implements GroupPrincipal {
        @Override
        public String getName() {
            return name(id);
        }

        @Override
        public String toString() {
            return getName();
        }
    }
}
