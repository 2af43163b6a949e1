/* The two forms of every response: what its Connection header tells the client the daemon
 * will do next. Every response head is pre-rendered (or rendered once) in both forms, so
 * choosing one costs an index, never a copy. */
#ifndef APOLLOD_COMMON_CONN_FORM_H
#define APOLLOD_COMMON_CONN_FORM_H

/* X(id, Connection header value) */
#define FOR_EACH_CONN_FORM(X)                  \
	X(CONN_FORM_CLOSE, "close")            \
	X(CONN_FORM_KEEP_ALIVE, "keep-alive")

enum conn_form {
#define FORM_ENUM(id, value) id,
	FOR_EACH_CONN_FORM(FORM_ENUM)
#undef FORM_ENUM
	CONN_FORM_COUNT
};

#endif /* APOLLOD_COMMON_CONN_FORM_H */
