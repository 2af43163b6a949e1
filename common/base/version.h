/* The release version, printed by --version with the tier's name. The one place the code
 * writes it: a release changes this line, and the image tag packaging/kubernetes/apollod.yaml
 * deploys (//packaging:kubernetes_test fails until the two agree). */
#ifndef APOLLOD_COMMON_VERSION_H
#define APOLLOD_COMMON_VERSION_H

#define APOLLOD_VERSION "0.13.0"

#endif /* APOLLOD_COMMON_VERSION_H */
