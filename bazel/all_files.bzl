"""Every source file of a package as one filegroup, for //test:citations_test."""

def all_files(include = ["**"], exclude = []):
    """Declares :all_files, the calling package's files (`include` globs, Python byte code
    left out). //test:citations_test scans them and finds cited paths among them, so a
    package without it is reported by that test."""
    native.filegroup(
        name = "all_files",
        srcs = native.glob(include, exclude = ["**/__pycache__/**"] + exclude),
        visibility = ["//test:__pkg__"],
    )
