"""The league's data layer: models of bots, seasons, matches, games and ratings, and the modules,
one per capability, that change them (versions, seasons and their formats, matches, ratings,
the ladder, challenges, the queue). The site reads these models; the workers call these
modules."""
