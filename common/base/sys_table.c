/* The syscall table as data (sys_table.h), for the sandbox's filter builder. */
#include "common/base/sys_table.h"

#define SYS_TABLE_DATA(name, nr, when, args) {#name, (nr), (when), args},
const struct sys_row sys_rows[SYS_TABLE_ROWS] = {SYS_TABLE(SYS_TABLE_DATA)};
