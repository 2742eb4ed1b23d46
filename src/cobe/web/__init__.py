"""What cobe's two web apps (human rating, dataset review) share: tokens, sessions, CSRF, headers."""
