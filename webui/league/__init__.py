"""The league's data layer: models of bots, seasons, matches, games and ratings, and the services
that change them. The site reads these models; the workers call the services."""
