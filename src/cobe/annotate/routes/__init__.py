"""The rating app's routes, one router per area: signing in and out, rating items, the admin's pages."""
