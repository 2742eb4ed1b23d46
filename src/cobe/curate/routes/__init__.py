"""The review app's routes, one router per area: signing in, the review queue and items, contributions,
the expert audit, and the admin's disagreements."""
