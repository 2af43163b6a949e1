/* The release version, printed by --version with the tier's name. The one place it is
 * written: a release changes this line. */
#ifndef APOLLOD_COMMON_VERSION_H
#define APOLLOD_COMMON_VERSION_H

#define APOLLOD_VERSION "0.13.0"

#endif /* APOLLOD_COMMON_VERSION_H */
