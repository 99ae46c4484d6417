# The site's one authentication backend (accounts.backends.ModelBackend), named here so that the
# modules it imports (selectors, permissions) can name it without importing it.
BACKEND_PATH = "webplatform.accounts.backends.ModelBackend"
