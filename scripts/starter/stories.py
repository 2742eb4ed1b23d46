"""Source data of the bundled starter dataset (written for this project; see build_starter.py).

Twenty core stories, three variations each. A variation keeps its core's causal structure,
graph type, failure modes and tags, and its criteria pattern, but tells a different story.
The set is easier than CoBe (shorter stories, small graphs, explicit causes, written by one
team rather than selected from contributions): it tests the pipeline, not a model.

Per variation:
- `graph`: directed edges "cause>effect", bidirected (confounded) pairs "a<>b";
  the variables are the ones the edges name, in order of first appearance;
- `do`: the variable the intervention sets;
- `preserve` / `change`: (sentence, variable) pairs, or (sentence, variable, INV) for an
  invariant fact (a fixed price or rule, a definition), or (sentence, variable, DESPITE) for a
  preserve fact about a consequence of the intervention that another cause keeps true.
  Every preserve sentence is stated in the story itself: a fact the story never states (a
  physical law the reader is assumed to know) is not a criterion.
"""

from __future__ import annotations

INV = "invariant"  # marks an invariant preserve fact
DESPITE = "holds_despite"  # marks a preserve fact that holds despite the intervention


def V(domain, story, intervention, original, answer, graph, do, preserve, change):  # noqa: N802
    """One variation, as plain data."""
    return {
        "domain": domain,
        "story": story,
        "intervention": intervention,
        "original_condition": original,
        "illustrative_answer": answer,
        "graph": graph,
        "do": do,
        "preserve": preserve,
        "change": change,
    }


CORES: list[dict] = [
    # 1 ─ chain: cause → condition → action* → outcome
    {
        "graph_type": "chain",
        "failure_modes": ["stale_consequence", "unsupported_connector"],
        "tags": [],
        "variations": [
            V(
                "daily_life",
                "A pipe burst under Sam's sink on Friday and flooded his kitchen. With no working kitchen, "
                "he ordered pizza three nights in a row, and the delivery bills left him too short of money "
                "to buy a concert ticket.",
                "Sam had eaten at his neighbour's house all weekend",
                "Sam ordered pizza three nights in a row",
                "A pipe burst under Sam's sink on Friday and flooded his kitchen. With no working kitchen, "
                "he ate at his neighbour's house all weekend instead of ordering in, so he still had enough "
                "money to buy a concert ticket.",
                "pipe_burst>kitchen_flooded kitchen_flooded>ordered_pizza ordered_pizza>short_of_money",
                "ordered_pizza",
                [
                    ("A pipe burst under Sam's sink on Friday.", "pipe_burst"),
                    ("Sam's kitchen was flooded and unusable that weekend.", "kitchen_flooded"),
                ],
                [
                    ("Sam ordered pizza three nights in a row.", "ordered_pizza"),
                    ("Sam was too short of money to buy a concert ticket.", "short_of_money"),
                ],
            ),
            V(
                "work",
                "The toner delivery never arrived, so the office printer ran dry on Monday morning. Unable to "
                "print handouts, Dana copied the quarterly figures onto the whiteboard by hand, and the team "
                "meeting started forty minutes late.",
                "Dana had emailed the quarterly figures to everyone's laptops",
                "Dana copied the quarterly figures onto the whiteboard by hand",
                "The toner delivery never arrived, so the office printer ran dry on Monday morning. Unable to "
                "print handouts, Dana emailed the quarterly figures to everyone's laptops, and the team "
                "meeting started on time.",
                "toner_missing>printer_empty printer_empty>handwritten_figures handwritten_figures>meeting_late",
                "handwritten_figures",
                [
                    ("The toner delivery never arrived.", "toner_missing"),
                    ("The office printer ran out of toner on Monday morning.", "printer_empty"),
                ],
                [
                    ("Dana copied the quarterly figures onto the whiteboard by hand.", "handwritten_figures"),
                    ("The team meeting started forty minutes late.", "meeting_late"),
                ],
            ),
            V(
                "school",
                "The school bus broke down on the morning of the chemistry exam, leaving Nina stranded at her "
                "stop. She walked the four kilometres to school, arrived after the exam had begun, and lost "
                "twenty minutes of writing time.",
                "Nina had caught a lift with her neighbour",
                "Nina walked the four kilometres to school",
                "The school bus broke down on the morning of the chemistry exam, leaving Nina stranded at her "
                "stop. Her neighbour gave her a lift, so she reached school before the exam began and had the "
                "full writing time.",
                "bus_breakdown>stranded stranded>walked walked>lost_time",
                "walked",
                [
                    ("The school bus broke down on the morning of the chemistry exam.", "bus_breakdown"),
                    ("Nina was left stranded at her bus stop.", "stranded"),
                ],
                [
                    ("Nina walked the four kilometres to school.", "walked"),
                    ("Nina arrived after the exam had begun and lost twenty minutes of writing time.", "lost_time"),
                ],
            ),
        ],
    },
    # 2 ─ fork with a latent stable reason: reason → action*, reason → habit; action* → outcome
    {
        "graph_type": "fork",
        "failure_modes": ["unchanged_reason"],
        "tags": ["latent"],
        "variations": [
            V(
                "daily_life",
                "Grace reached the farmers' market at 7 a.m., the minute it opened, and was the first customer "
                "at the honey stall. On the way home she took the empty river path instead of cutting through "
                "the busy square, as she always does.",
                "Grace had arrived at the market at noon",
                "Grace reached the farmers' market at 7 a.m.",
                "Grace reached the farmers' market at noon and joined a long queue at the honey stall. On the "
                "way home she took the empty river path instead of cutting through the busy square, as she "
                "always does.",
                "avoids_crowds>market_time avoids_crowds>river_path market_time>first_customer",
                "market_time",
                [("Grace walked home along the empty river path instead of through the busy square.", "river_path")],
                [
                    ("Grace reached the farmers' market at 7 a.m.", "market_time"),
                    ("Grace was the first customer at the honey stall.", "first_customer"),
                ],
            ),
            V(
                "work",
                "Tomás climbed the stairs to the ninth-floor office, as he does every day, and at the all-hands "
                "meeting he took the aisle seat next to the open door. When the talk ran long, he slipped out "
                "unnoticed.",
                "Tomás had sat in the middle of the front row",
                "Tomás took the aisle seat next to the open door",
                "Tomás climbed the stairs to the ninth-floor office, as he does every day, and at the all-hands "
                "meeting he sat in the middle of the front row. When the talk ran long, he had to stay put in "
                "full view of the speaker.",
                "dislikes_enclosure>seat dislikes_enclosure>stairs seat>slipped_out",
                "seat",
                [("Tomás climbed the stairs to the ninth-floor office, as he does every day.", "stairs")],
                [
                    ("Tomás took the aisle seat next to the open door.", "seat"),
                    ("Tomás slipped out of the meeting unnoticed.", "slipped_out"),
                ],
            ),
            V(
                "travel",
                "For his day trip to the coast, Ravi packed sandwiches from home and took the two-hour regional "
                "bus rather than the express coach. The bus stopped in every village along the way.",
                "Ravi had taken the express coach",
                "Ravi took the two-hour regional bus",
                "For his day trip to the coast, Ravi packed sandwiches from home and took the express coach "
                "rather than the regional bus. The coach ran straight to the coast without stopping in the "
                "villages.",
                "tight_budget>bus_choice tight_budget>sandwiches bus_choice>village_stops",
                "bus_choice",
                [("Ravi packed sandwiches from home for his day trip to the coast.", "sandwiches")],
                [
                    ("Ravi took the two-hour regional bus.", "bus_choice"),
                    ("Ravi's bus stopped in every village along the way.", "village_stops"),
                ],
            ),
        ],
    },
    # 3 ─ collider: two causes both needed → effect → consequence
    {
        "graph_type": "collider",
        "failure_modes": ["background_rationalised"],
        "tags": [],
        "variations": [
            V(
                "nature",
                "On the camping trip, Jo gathered a pile of dry pine needles and Sam struck their last match. "
                "The needles caught at once, and the pair boiled water for cocoa over the little fire.",
                "Sam had dropped their last match into the stream",
                "Sam struck their last match",
                "On the camping trip, Jo gathered a pile of dry pine needles, but Sam dropped their last match "
                "into the stream. With nothing to light them, the needles never caught, and the pair went "
                "without cocoa that night.",
                "match>fire kindling>fire fire>cocoa",
                "match",
                [("Jo gathered a pile of dry pine needles.", "kindling")],
                [("Sam struck their last match.", "match"), ("The pine needles caught fire.", "fire")],
            ),
            V(
                "finance",
                "Lucia's bank approves car loans only for customers with a clean credit record and proof of "
                "income. Lucia had a spotless record and brought three months of payslips, so her loan was "
                "approved that afternoon and she drove her new car home the next day.",
                "Lucia had left her payslips at home",
                "Lucia brought three months of payslips to the bank",
                "Lucia's bank approves car loans only for customers with a clean credit record and proof of "
                "income. Lucia had a spotless record but left her payslips at home, so her loan could not be "
                "approved that afternoon and she went home without a new car.",
                "payslips>approved credit>approved approved>new_car",
                "payslips",
                [
                    ("Lucia had a spotless credit record.", "credit"),
                    (
                        "The bank approves car loans only for customers with a clean credit record and proof of income.",
                        "approved",
                        INV,
                    ),
                ],
                [
                    ("Lucia brought three months of payslips to the bank.", "payslips"),
                    ("Lucia's car loan was approved that afternoon.", "approved"),
                ],
            ),
            V(
                "cooking",
                "Farid mixed fresh yeast into his bread dough and set the bowl beside the warm oven. By noon "
                "the dough had doubled in size, and he baked two golden loaves for lunch.",
                "Farid had set the bowl on the frosty back porch",
                "Farid set the bowl beside the warm oven",
                "Farid mixed fresh yeast into his bread dough but set the bowl on the frosty back porch. By "
                "noon the cold dough had barely risen, so there was no bread ready for lunch.",
                "warmth>risen yeast>risen risen>loaves",
                "warmth",
                [
                    ("Farid mixed fresh yeast into his bread dough.", "yeast"),
                ],
                [
                    ("Farid set the bowl beside the warm oven.", "warmth"),
                    ("By noon Farid's dough had doubled in size.", "risen"),
                ],
            ),
        ],
    },
    # 4 ─ diamond: shared cause → two placements (one intervened) → where they meet
    {
        "graph_type": "diamond",
        "failure_modes": ["spatial", "stale_consequence"],
        "tags": [],
        "variations": [
            V(
                "school",
                "The city library was closed for repairs, so Mei studied at a café on Elm Street while Jun "
                "worked in the university hall across town. At noon they met halfway, at the bookshop on Fifth "
                "Avenue, for lunch.",
                "Mei had also studied in the university hall",
                "Mei studied at a café on Elm Street",
                "The city library was closed for repairs, so Mei and Jun both studied in the university hall "
                "across town. At noon they simply walked down to the hall's cafeteria together for lunch.",
                "library_closed>mei_place library_closed>jun_place mei_place>meeting_point jun_place>meeting_point",
                "mei_place",
                [
                    ("The city library was closed for repairs.", "library_closed"),
                    ("Jun studied in the university hall.", "jun_place"),
                ],
                [
                    ("Mei studied at a café on Elm Street.", "mei_place"),
                    ("At noon Mei and Jun met halfway, at the bookshop on Fifth Avenue.", "meeting_point"),
                ],
            ),
            V(
                "daily_life",
                "Road works closed the town centre on Saturday, so Nadia parked in the north car park and her "
                "friend Tariq in the south car park. Each then walked ten minutes to meet the other at the "
                "fountain in the middle.",
                "Nadia had parked in the south car park too",
                "Nadia parked in the north car park",
                "Road works closed the town centre on Saturday, so Nadia and her friend Tariq both parked in "
                "the south car park. They met right there beside their cars, with no need to walk to the "
                "fountain to find each other.",
                "road_works>nadia_parking road_works>tariq_parking nadia_parking>meeting tariq_parking>meeting",
                "nadia_parking",
                [
                    ("Road works closed the town centre on Saturday.", "road_works"),
                    ("Tariq parked in the south car park.", "tariq_parking"),
                ],
                [
                    ("Nadia parked in the north car park.", "nadia_parking"),
                    (
                        "Nadia and Tariq each walked ten minutes from opposite car parks to meet at the fountain.",
                        "meeting",
                    ),
                ],
            ),
            V(
                "work",
                "The Leeds office was closed for repainting, so Hana worked from the Manchester branch that "
                "week and her manager Cole from the London office. Being two hundred miles apart, they held "
                "their weekly check-in by video call.",
                "Hana had worked from the London office that week",
                "Hana worked from the Manchester branch that week",
                "The Leeds office was closed for repainting, so Hana and her manager Cole both worked from the "
                "London office that week. Sitting a few desks apart, they held their weekly check-in face to "
                "face.",
                "repainting>hana_office repainting>cole_office hana_office>distance cole_office>distance",
                "hana_office",
                [
                    ("The Leeds office was closed for repainting that week.", "repainting"),
                    ("Cole worked from the London office that week.", "cole_office"),
                ],
                [
                    ("Hana worked from the Manchester branch that week.", "hana_office"),
                    ("Hana and Cole were two hundred miles apart that week.", "distance"),
                ],
            ),
        ],
    },
    # 5 ─ numeric chain: fixed need → scale* → amount → follow-on quantity
    {
        "graph_type": "chain",
        "failure_modes": ["physical_quantitative", "background_rationalised"],
        "tags": ["numeric"],
        "variations": [
            V(
                "cooking",
                "Rosa needed 12 cupcakes for the school bake sale. Her recipe makes 6, so she doubled it and "
                "baked 12 cupcakes, which filled exactly two trays of six.",
                "Rosa had tripled her recipe",
                "Rosa doubled her recipe",
                "Rosa needed 12 cupcakes for the school bake sale. Her recipe makes 6, but she tripled it and "
                "baked 18 cupcakes, which filled three trays of six and left her 6 more than she needed.",
                "need>scale scale>cupcakes cupcakes>trays",
                "scale",
                [
                    ("Rosa needed 12 cupcakes for the school bake sale.", "need"),
                    ("Rosa's recipe makes 6 cupcakes.", "cupcakes", INV),
                ],
                [
                    ("Rosa doubled her recipe.", "scale"),
                    ("Rosa baked 12 cupcakes.", "cupcakes"),
                    ("Rosa's cupcakes filled exactly two trays of six.", "trays"),
                ],
            ),
            V(
                "finance",
                "Ahmed's $900 rent was due on the first of the month. He worked 30 overtime hours at $20 an "
                "hour, earning $600, so he had to borrow the remaining $300 from his sister.",
                "Ahmed had worked 45 overtime hours",
                "Ahmed worked 30 overtime hours",
                "Ahmed's $900 rent was due on the first of the month. He worked 45 overtime hours at $20 an "
                "hour, earning $900, so he covered the rent himself and did not need to borrow from his sister.",
                "rent_due>overtime overtime>earnings earnings>borrowed",
                "overtime",
                [("Ahmed's rent was $900.", "rent_due"), ("Ahmed's overtime pays $20 an hour.", "earnings", INV)],
                [
                    ("Ahmed worked 30 overtime hours.", "overtime"),
                    ("Ahmed earned $600 from his overtime.", "earnings"),
                    ("Ahmed borrowed $300 from his sister.", "borrowed"),
                ],
            ),
            V(
                "sports",
                "The hiking club set off at 10 a.m. on a 24-kilometre trail to the mountain hut. Walking at a "
                "steady 4 kilometres an hour, they took 6 hours and reached the hut at 4 p.m.",
                "the club had walked at 3 kilometres an hour",
                "the club walked at 4 kilometres an hour",
                "The hiking club set off at 10 a.m. on a 24-kilometre trail to the mountain hut. Walking at a "
                "steady 3 kilometres an hour, they took 8 hours and reached the hut at 6 p.m.",
                "plan>pace pace>duration duration>arrival",
                "pace",
                [
                    ("The hiking club set off at 10 a.m.", "plan"),
                    ("The trail to the mountain hut was 24 kilometres long.", "plan"),
                ],
                [
                    ("The club walked at 4 kilometres an hour.", "pace"),
                    ("The club took 6 hours to reach the hut.", "duration"),
                    ("The club reached the mountain hut at 4 p.m.", "arrival"),
                ],
            ),
        ],
    },
    # 6 ─ correlated (hidden common cause): A* <-> B, A* → C, B → D
    {
        "graph_type": "correlated",
        "failure_modes": ["unsupported_connector", "background_rationalised"],
        "tags": ["latent"],
        "variations": [
            V(
                "daily_life",
                "Last Saturday the beach kiosk at Gull Bay sold 300 ice-cream cones, earning its owner a record "
                "day's profit. That afternoon the lifeguards pulled five swimmers from the water, so the council "
                "added an extra lifeguard for Sunday.",
                "the kiosk had stayed closed all Saturday",
                "the beach kiosk sold 300 ice-cream cones",
                "Last Saturday the beach kiosk at Gull Bay stayed closed, so its owner earned nothing that day. "
                "That afternoon the lifeguards pulled five swimmers from the water, so the council added an "
                "extra lifeguard for Sunday.",
                "cones_sold<>rescues cones_sold>profit rescues>extra_guard",
                "cones_sold",
                [
                    ("The lifeguards pulled five swimmers from the water on Saturday afternoon.", "rescues"),
                    ("The council added an extra lifeguard for Sunday.", "extra_guard"),
                ],
                [
                    ("The beach kiosk sold 300 ice-cream cones on Saturday.", "cones_sold"),
                    ("The kiosk owner earned a record day's profit.", "profit"),
                ],
            ),
            V(
                "school",
                "This term Hugo earned top marks in his maths exam, and he also won the school piano "
                "competition. The prize money paid for his summer music camp, and his maths result won him a "
                "place in next year's advanced class.",
                "Hugo had withdrawn from the piano competition",
                "Hugo won the school piano competition",
                "This term Hugo earned top marks in his maths exam, but he withdrew from the school piano "
                "competition. With no prize money, his summer music camp went unpaid, while his maths result "
                "still won him a place in next year's advanced class.",
                "piano_win<>maths_marks piano_win>music_camp maths_marks>advanced_class",
                "piano_win",
                [
                    ("Hugo earned top marks in his maths exam this term.", "maths_marks"),
                    ("Hugo won a place in next year's advanced maths class.", "advanced_class"),
                ],
                [
                    ("Hugo won the school piano competition.", "piano_win"),
                    ("Prize money paid for Hugo's summer music camp.", "music_camp"),
                ],
            ),
            V(
                "health",
                "Mr. Patel came to the clinic with yellow-stained fingertips and a persistent cough. The nurse "
                "handed him a leaflet about removing the stains, and the doctor sent him for a chest X-ray "
                "because of the cough.",
                "Mr. Patel had scrubbed the stains off his fingers before the visit",
                "Mr. Patel came to the clinic with yellow-stained fingertips",
                "Mr. Patel came to the clinic with clean fingertips, having scrubbed them before the visit, "
                "and a persistent cough. The nurse had no reason to give him a stain leaflet, and the doctor "
                "sent him for a chest X-ray because of the cough.",
                "stains<>cough stains>leaflet cough>xray",
                "stains",
                [
                    ("Mr. Patel had a persistent cough.", "cough"),
                    ("The doctor sent Mr. Patel for a chest X-ray.", "xray"),
                ],
                [
                    ("Mr. Patel came to the clinic with yellow-stained fingertips.", "stains"),
                    ("The nurse handed Mr. Patel a leaflet about removing the stains.", "leaflet"),
                ],
            ),
        ],
    },
    # 7 ─ hybrid: one event has two effects, one choice* meets each of them
    {
        "graph_type": "hybrid",
        "failure_modes": ["stale_consequence", "unchanged_reason"],
        "tags": [],
        "variations": [
            V(
                "work",
                "Heavy snow closed the schools on Tuesday and left the roads icy. Lena still went to the office, "
                "so her mother came over to mind the children, and Lena spent two hours crawling along the icy "
                "roads to work.",
                "Lena had worked from home on Tuesday",
                "Lena went to the office on Tuesday",
                "Heavy snow closed the schools on Tuesday and left the roads icy. Lena worked from home that "
                "day, looking after the children herself between calls, and never had to drive on the icy roads.",
                "snow>schools_closed schools_closed>babysitter office>babysitter snow>icy_roads "
                "icy_roads>long_drive office>long_drive",
                "office",
                [
                    ("Heavy snow closed the schools on Tuesday.", "schools_closed"),
                    ("The roads were icy on Tuesday.", "icy_roads"),
                ],
                [
                    ("Lena went to the office on Tuesday.", "office"),
                    ("Lena's mother came over to mind the children.", "babysitter"),
                    ("Lena spent two hours driving to work on icy roads.", "long_drive"),
                ],
            ),
            V(
                "daily_life",
                "Monday was a public holiday, so the buses ran only once an hour and most shops were shut. "
                "Aisha went into town anyway to buy a birthday present, waited forty minutes at the bus stop, "
                "and found the bookshop closed.",
                "Aisha had stayed home and ordered the present online",
                "Aisha went into town to buy a birthday present",
                "Monday was a public holiday, so the buses ran only once an hour and most shops were shut. "
                "Aisha stayed home and ordered the birthday present online, so she never stood at a bus stop "
                "or found a shop door locked.",
                "holiday>hourly_buses hourly_buses>bus_wait trip>bus_wait holiday>shops_shut "
                "shops_shut>found_closed trip>found_closed",
                "trip",
                [
                    ("Monday was a public holiday.", "holiday"),
                    ("The buses ran only once an hour on Monday.", "hourly_buses"),
                ],
                [
                    ("Aisha went into town on Monday to buy a birthday present.", "trip"),
                    ("Aisha waited forty minutes at the bus stop.", "bus_wait"),
                    ("Aisha found the bookshop closed.", "found_closed"),
                ],
            ),
            V(
                "work",
                "Raj's company moved to a suburban business park with no canteen, ninety minutes from his flat. "
                "Raj kept working at the office every day, so he packed his own lunch each morning and got up "
                "at 5:30 to catch the first train.",
                "Raj had switched to working from home",
                "Raj kept working at the office every day",
                "Raj's company moved to a suburban business park with no canteen, ninety minutes from his flat. "
                "Raj switched to working from home, so he made lunch in his own kitchen and no longer had to "
                "get up at 5:30 for the first train.",
                "relocation>no_canteen no_canteen>packed_lunch office>packed_lunch relocation>long_commute "
                "long_commute>early_rising office>early_rising",
                "office",
                [
                    ("Raj's company moved to a suburban business park.", "relocation"),
                    ("The new office has no canteen.", "no_canteen"),
                ],
                [
                    ("Raj worked at the office every day.", "office"),
                    ("Raj got up at 5:30 to catch the first train.", "early_rising"),
                ],
            ),
        ],
    },
    # 8 ─ numeric fork: a head count sets two things; one (intervened) sets a cost
    {
        "graph_type": "fork",
        "failure_modes": ["physical_quantitative", "unchanged_reason"],
        "tags": ["numeric"],
        "variations": [
            V(
                "cooking",
                "Twelve guests confirmed for Ayo's birthday party. She set out twelve chairs around the table "
                "and ordered three large pizzas at $15 each, spending $45.",
                "Ayo had ordered four large pizzas",
                "Ayo ordered three large pizzas",
                "Twelve guests confirmed for Ayo's birthday party. She set out twelve chairs around the table "
                "and ordered four large pizzas at $15 each, spending $60.",
                "guests>pizzas guests>chairs pizzas>pizza_cost",
                "pizzas",
                [
                    ("Twelve guests confirmed for Ayo's birthday party.", "guests"),
                    ("Ayo set out twelve chairs around the table.", "chairs"),
                    ("Each large pizza cost $15.", "pizza_cost", INV),
                ],
                [("Ayo ordered three large pizzas.", "pizzas"), ("Ayo spent $45 on pizza.", "pizza_cost")],
            ),
            V(
                "school",
                "Mr. Okafor's class has 28 students. For the museum trip he printed 28 worksheets and booked "
                "one 30-seat minibus at $120, so the transport bill came to $120.",
                "Mr. Okafor had booked two minibuses",
                "Mr. Okafor booked one minibus",
                "Mr. Okafor's class has 28 students. For the museum trip he printed 28 worksheets and booked "
                "two 30-seat minibuses at $120 each, so the transport bill came to $240.",
                "students>minibuses students>worksheets minibuses>transport_bill",
                "minibuses",
                [
                    ("Mr. Okafor's class has 28 students.", "students"),
                    ("Mr. Okafor printed 28 worksheets.", "worksheets"),
                    ("Each minibus cost $120.", "transport_bill", INV),
                ],
                [
                    ("Mr. Okafor booked one minibus.", "minibuses"),
                    ("The transport bill came to $120.", "transport_bill"),
                ],
            ),
            V(
                "nature",
                "Pia's vegetable bed is 10 metres long. She laid 10 metres of drip hose along it and planted "
                "20 tomato seedlings, one every half metre, at $2 each, spending $40.",
                "Pia had planted only 10 seedlings, one every metre",
                "Pia planted 20 tomato seedlings",
                "Pia's vegetable bed is 10 metres long. She laid 10 metres of drip hose along it and planted "
                "10 tomato seedlings, one every metre, at $2 each, spending $20.",
                "bed_length>seedlings bed_length>hose seedlings>seedling_cost",
                "seedlings",
                [
                    ("Pia's vegetable bed is 10 metres long.", "bed_length"),
                    ("Pia laid 10 metres of drip hose along the bed.", "hose"),
                    ("Each seedling cost $2.", "seedling_cost", INV),
                ],
                [
                    ("Pia planted 20 tomato seedlings, one every half metre.", "seedlings"),
                    ("Pia spent $40 on seedlings.", "seedling_cost"),
                ],
            ),
        ],
    },
    # 9 ─ collider: a past history and a present choice* together produce an outcome
    {
        "graph_type": "collider",
        "failure_modes": ["history_rewritten", "unsupported_connector"],
        "tags": [],
        "variations": [
            V(
                "travel",
                "Twenty years ago Carla spent her honeymoon at a small guesthouse in Lisbon. This spring she "
                "stayed there again, and the owner, who greets every returning guest with a bottle of port, "
                "welcomed her back with one.",
                "Carla had travelled to Iceland this spring instead of returning to Lisbon",
                "Carla stayed at the Lisbon guesthouse again this spring",
                "Twenty years ago Carla spent her honeymoon at a small guesthouse in Lisbon. This spring she "
                "went to Iceland instead, so there was no welcome-back bottle of port from the Lisbon owner.",
                "booking>port_gift honeymoon>port_gift",
                "booking",
                [
                    ("Twenty years ago Carla spent her honeymoon at a small guesthouse in Lisbon.", "honeymoon"),
                ],
                [
                    ("This spring Carla stayed at the Lisbon guesthouse again.", "booking"),
                    ("The guesthouse owner welcomed Carla back with a bottle of port.", "port_gift"),
                ],
            ),
            V(
                "sports",
                "Dev played in goal for his school team for six years. At the office five-a-side tournament "
                "he volunteered to keep goal again, and his old training paid off when he saved two penalties "
                "in the final.",
                "Dev had chosen to play up front as a striker",
                "Dev volunteered to keep goal",
                "Dev played in goal for his school team for six years. At the office five-a-side tournament "
                "he chose to play up front as a striker instead, so a colleague kept goal in the final.",
                "position>penalty_saves keeper_history>penalty_saves",
                "position",
                [("Dev played in goal for his school team for six years.", "keeper_history")],
                [
                    ("Dev kept goal at the office five-a-side tournament.", "position"),
                    ("Dev saved two penalties in the final.", "penalty_saves"),
                ],
            ),
            V(
                "school",
                "Mira took classical piano lessons for eight years as a child. At the college talent show she "
                "played a Chopin nocturne, and the judges singled out her polished piano technique.",
                "Mira had sung a pop song at the talent show",
                "Mira played a Chopin nocturne at the talent show",
                "Mira took classical piano lessons for eight years as a child. At the college talent show she "
                "sang a pop song instead, and the judges commented on her voice rather than on any piano "
                "playing.",
                "performance>technique_praise lessons>technique_praise",
                "performance",
                [("Mira took classical piano lessons for eight years as a child.", "lessons")],
                [
                    ("Mira played a Chopin nocturne at the talent show.", "performance"),
                    ("The judges singled out Mira's polished piano technique.", "technique_praise"),
                ],
            ),
        ],
    },
    # 10 ─ numeric hybrid: budget and a choice* set what is left; the choice has a second effect
    {
        "graph_type": "hybrid",
        "failure_modes": ["physical_quantitative", "stale_consequence"],
        "tags": ["numeric"],
        "variations": [
            V(
                "finance",
                "Liam had $50 to last the weekend. He bought a $30 front-row concert ticket, which left him $20, "
                "not enough for his friends' $25 sushi dinner, so he ate a sandwich at home.",
                "Liam had bought a $15 balcony ticket",
                "Liam bought a $30 front-row concert ticket",
                "Liam had $50 to last the weekend. He bought a $15 balcony ticket, which left him $35, enough "
                "for his friends' $25 sushi dinner, so he joined them at the restaurant.",
                "budget>money_left ticket>money_left ticket>seat money_left>sushi",
                "ticket",
                [
                    ("Liam had $50 to last the weekend.", "budget"),
                    ("His friends' sushi dinner cost $25.", "sushi", INV),
                ],
                [
                    ("Liam bought a $30 front-row concert ticket.", "ticket"),
                    ("Liam had $20 left after buying the ticket.", "money_left"),
                    ("Liam could not afford his friends' sushi dinner.", "sushi"),
                ],
            ),
            V(
                "travel",
                "Jana left home with her phone at 60%. On the two-hour train ride she streamed a whole film, "
                "which used 40% and left 20%, not enough for the hour of map navigation to her hostel, which "
                "needs 30%.",
                "Jana had read a paperback on the train instead",
                "Jana streamed a whole film on the train",
                "Jana left home with her phone at 60%. On the two-hour train ride she read a paperback and "
                "left the phone in her bag, so it still had about 60%, plenty for the hour of map navigation "
                "to her hostel, which needs 30%.",
                "start_charge>charge_left activity>charge_left activity>film_seen charge_left>navigation",
                "activity",
                [
                    ("Jana left home with her phone at 60%.", "start_charge"),
                    ("An hour of map navigation uses 30% of the battery.", "navigation", INV),
                ],
                [
                    ("Jana streamed a whole film on the train.", "activity"),
                    ("The film used 40% of the phone's battery.", "charge_left"),
                    ("Jana's phone had 20% left after the ride.", "charge_left"),
                    ("Jana's phone did not have enough charge left for the map navigation.", "navigation"),
                ],
            ),
            V(
                "science",
                "The lab's stock bottle held 500 mL of buffer. Dr. Silva ran seven samples at 50 mL each, "
                "getting seven data points but using 350 mL and leaving 150 mL, not enough for Friday's 200 mL "
                "calibration run.",
                "Dr. Silva had run only three samples",
                "Dr. Silva ran seven samples",
                "The lab's stock bottle held 500 mL of buffer. Dr. Silva ran only three samples at 50 mL each, "
                "getting three data points and using 150 mL, which left 350 mL, enough for Friday's 200 mL "
                "calibration run.",
                "stock>buffer_left samples>buffer_left samples>data_points buffer_left>calibration",
                "samples",
                [
                    ("The lab's stock bottle held 500 mL of buffer.", "stock"),
                    ("Each sample uses 50 mL of buffer.", "buffer_left", INV),
                    ("Friday's calibration run needs 200 mL of buffer.", "calibration", INV),
                ],
                [
                    ("Dr. Silva ran seven samples.", "samples"),
                    ("Dr. Silva used 350 mL of buffer on the samples.", "buffer_left"),
                    ("Only 150 mL of buffer was left.", "buffer_left"),
                    ("There was not enough buffer left for Friday's calibration run.", "calibration"),
                ],
            ),
        ],
    },
    # 11 ─ spatial chain: reason → where someone went* → where they ended up → what they saw
    {
        "graph_type": "chain",
        "failure_modes": ["spatial", "stale_consequence"],
        "tags": [],
        "variations": [
            V(
                "travel",
                "Tess's flight landed too late for the last bus to her aunt's village, so she took the night "
                "train north to her parents' farm instead. She woke in the farmhouse loft and watched the sun "
                "rise over the lake from its window.",
                "Tess had booked a room at the airport hotel",
                "Tess took the night train north to her parents' farm",
                "Tess's flight landed too late for the last bus to her aunt's village, so she booked a room at "
                "the airport hotel. She woke there to the roar of planes taking off outside her window.",
                "late_flight>night_train night_train>woke_at_farm woke_at_farm>lake_sunrise",
                "night_train",
                [("Tess's flight landed too late for the last bus to her aunt's village.", "late_flight")],
                [
                    ("Tess took the night train north to her parents' farm.", "night_train"),
                    ("Tess woke in the farmhouse loft and watched the sun rise over the lake.", "woke_at_farm"),
                ],
            ),
            V(
                "daily_life",
                "The lift in Amir's building broke on moving day, so the movers left his new sofa in the "
                "ground-floor lobby. It blocked the wall of mailboxes, and his neighbours could not collect "
                "their post all evening.",
                "the movers had carried the sofa up the stairs to Amir's flat",
                "the movers left Amir's sofa in the ground-floor lobby",
                "The lift in Amir's building broke on moving day, so the movers carried his new sofa up the "
                "stairs to his flat. The lobby stayed clear, and his neighbours collected their post as usual.",
                "lift_broken>sofa_in_lobby sofa_in_lobby>mailboxes_blocked mailboxes_blocked>no_post",
                "sofa_in_lobby",
                [("The lift in Amir's building broke on moving day.", "lift_broken")],
                [
                    ("The movers left Amir's sofa in the ground-floor lobby.", "sofa_in_lobby"),
                    ("Amir's neighbours could not collect their post that evening.", "no_post"),
                ],
            ),
            V(
                "nature",
                "A fallen oak blocked the valley trail, so the scout troop climbed by the ridge path instead. "
                "The ridge brought them out on the north side of the summit, where they could see the "
                "reservoir glinting below.",
                "the scouts had clambered over the fallen oak and stayed on the valley trail",
                "the scout troop climbed by the ridge path",
                "A fallen oak blocked the valley trail, but the scout troop clambered over it and stayed on "
                "the valley trail. It brought them up to the summit from the south side rather than the north.",
                "fallen_oak>ridge_path ridge_path>north_side north_side>reservoir_view",
                "ridge_path",
                [("A fallen oak blocked the valley trail.", "fallen_oak")],
                [
                    ("The scout troop climbed by the ridge path.", "ridge_path"),
                    ("The scouts came out on the north side of the summit.", "north_side"),
                ],
            ),
        ],
    },
    # 12 ─ diamond: one occasion → two loads (one intervened) → together they overload
    {
        "graph_type": "diamond",
        "failure_modes": ["unsupported_connector", "background_rationalised"],
        "tags": [],
        "variations": [
            V(
                "daily_life",
                "On a freezing night at the cottage, Lou switched on the old electric heater while Sara boiled "
                "the kettle for hot-water bottles. The two together overloaded the circuit, the fuse blew, and "
                "the cottage went dark.",
                "Lou had lit the wood stove instead",
                "Lou switched on the old electric heater",
                "On a freezing night at the cottage, Lou lit the wood stove while Sara boiled the kettle for "
                "hot-water bottles. The kettle alone was within the circuit's limit, so the fuse held and the "
                "lights stayed on.",
                "freezing>heater freezing>kettle heater>fuse_blew kettle>fuse_blew",
                "heater",
                [
                    ("It was a freezing night at the cottage.", "freezing"),
                    ("Sara boiled the kettle for hot-water bottles.", "kettle"),
                ],
                [
                    ("Lou switched on the old electric heater.", "heater"),
                    ("The fuse blew and the cottage went dark.", "fuse_blew"),
                ],
            ),
            V(
                "work",
                "With the product launch due on Friday, Jin started a huge data export on the shared server "
                "just as Kate kicked off the full test suite. Together the two jobs exhausted its memory, and "
                "the server crashed.",
                "Jin had waited until the weekend to run the export",
                "Jin started a huge data export while Kate's test suite was running",
                "With the product launch due on Friday, Kate kicked off the full test suite on the shared "
                "server, and Jin waited until the weekend to run his data export. The tests ran alone, within "
                "the server's memory, and it stayed up.",
                "deadline>export deadline>tests export>crash tests>crash",
                "export",
                [
                    ("The product launch was due on Friday.", "deadline"),
                    ("Kate ran the full test suite on the shared server.", "tests"),
                ],
                [
                    ("Jin ran his data export at the same time as Kate's test suite.", "export"),
                    ("The shared server crashed.", "crash"),
                ],
            ),
            V(
                "school",
                "With the school festival a week away, Coach Baker booked the gym for extra volleyball practice "
                "on Thursday afternoon, and the drama club booked it for their dress rehearsal at the same "
                "hour. Both groups turned up and argued over the space.",
                "Coach Baker had held the extra practice on the outdoor court",
                "Coach Baker booked the gym for volleyball practice",
                "With the school festival a week away, Coach Baker held the extra volleyball practice on the "
                "outdoor court on Thursday afternoon, and the drama club had the gym to itself for its dress "
                "rehearsal.",
                "festival>volleyball festival>rehearsal volleyball>clash rehearsal>clash",
                "volleyball",
                [
                    ("The school festival was a week away.", "festival"),
                    ("The drama club booked the gym for its dress rehearsal on Thursday afternoon.", "rehearsal"),
                ],
                [
                    ("Coach Baker booked the gym for volleyball practice on Thursday afternoon.", "volleyball"),
                    ("The volleyball team and the drama club argued over the gym.", "clash"),
                ],
            ),
        ],
    },
    # 13 ─ correlated habits with a hidden shared cause: A* <-> B, A* → C, B → D
    {
        "graph_type": "correlated",
        "failure_modes": ["unsupported_connector", "unchanged_reason"],
        "tags": ["latent"],
        "variations": [
            V(
                "finance",
                "The Hassans installed solar panels on their roof last spring, and they also drive an electric "
                "car. Their electricity bill has dropped to almost nothing, and they charge the car for free at "
                "the office.",
                "the Hassans had never installed solar panels",
                "the Hassans installed solar panels on their roof last spring",
                "The Hassans never installed solar panels, though they do drive an electric car. Their "
                "electricity bill stayed at its usual level, and they charge the car for free at the office.",
                "solar<>electric_car solar>low_bill electric_car>free_charging",
                "solar",
                [
                    ("The Hassans drive an electric car.", "electric_car"),
                    ("The Hassans charge their car for free at the office.", "free_charging"),
                ],
                [
                    ("The Hassans installed solar panels on their roof last spring.", "solar"),
                    ("The Hassans' electricity bill dropped to almost nothing.", "low_bill"),
                ],
            ),
            V(
                "health",
                "Sunita jogs around Linden Park every morning, and every Saturday she buys organic vegetables "
                "at the farmers' market. On her jogs she waves to Mr. Cole at the park gate, and the market "
                "vendor saves her the best spinach.",
                "Sunita had given up her morning jogs",
                "Sunita jogged around Linden Park every morning",
                "Sunita gave up her morning jogs around Linden Park, so she no longer passes Mr. Cole at the "
                "park gate. Every Saturday she still buys organic vegetables at the farmers' market, and the "
                "vendor saves her the best spinach.",
                "jogging<>organic_veg jogging>waves_to_cole organic_veg>best_spinach",
                "jogging",
                [
                    ("Every Saturday Sunita buys organic vegetables at the farmers' market.", "organic_veg"),
                    ("The market vendor saves Sunita the best spinach.", "best_spinach"),
                ],
                [
                    ("Sunita jogs around Linden Park every morning.", "jogging"),
                    ("Sunita waves to Mr. Cole at the park gate on her morning jogs.", "waves_to_cole"),
                ],
            ),
            V(
                "work",
                "Felix is always the first to arrive at the design studio, at 7 a.m., and he waters the office "
                "plants every evening before he leaves. Being first in, he switches on the coffee machine, and "
                "the plants are thriving.",
                "Felix had started arriving at 10 a.m.",
                "Felix arrived at the design studio at 7 a.m.",
                "Felix started arriving at the design studio at 10 a.m., so a colleague now switches on the "
                "coffee machine. He still waters the office plants every evening before he leaves, and the "
                "plants are thriving.",
                "early_arrival<>waters_plants early_arrival>coffee waters_plants>plants_thrive",
                "early_arrival",
                [
                    ("Felix waters the office plants every evening before he leaves.", "waters_plants"),
                    ("The office plants are thriving.", "plants_thrive"),
                ],
                [
                    ("Felix arrives at the design studio at 7 a.m.", "early_arrival"),
                    ("Felix switches on the coffee machine each morning.", "coffee"),
                ],
            ),
        ],
    },
    # 14 ─ fork: a commitment or goal → how it is carried out* (→ its effect), and a second act
    {
        "graph_type": "fork",
        "failure_modes": ["unchanged_reason", "history_rewritten"],
        "tags": [],
        "variations": [
            V(
                "daily_life",
                "Greta had promised to visit her grandmother in Riverton on Sunday. That morning she baked her "
                "grandmother's favourite plum cake, then drove there and spent an hour stuck in motorway "
                "traffic.",
                "Greta had taken the train to Riverton",
                "Greta drove to Riverton",
                "Greta had promised to visit her grandmother in Riverton on Sunday. That morning she baked her "
                "grandmother's favourite plum cake, then took the train there, reading quietly while the "
                "motorway traffic crawled alongside.",
                "promise>travel_mode promise>plum_cake travel_mode>traffic_jam",
                "travel_mode",
                [
                    ("Greta had promised to visit her grandmother in Riverton on Sunday.", "promise"),
                    ("Greta baked her grandmother's favourite plum cake.", "plum_cake"),
                ],
                [
                    ("Greta drove to Riverton.", "travel_mode"),
                    ("Greta spent an hour stuck in motorway traffic.", "traffic_jam"),
                ],
            ),
            V(
                "health",
                "In March, Marco's doctor warned him that his cholesterol was too high. Since then he has "
                "cycled to work every day and switched his breakfast from bacon to oat porridge, which he buys "
                "in big sacks from the bulk shop.",
                "Marco had kept his bacon breakfasts",
                "Marco switched his breakfast from bacon to oat porridge",
                "In March, Marco's doctor warned him that his cholesterol was too high. Since then he has "
                "cycled to work every day, but he has kept eating bacon for breakfast and has no use for sacks "
                "of oats.",
                "warning>breakfast warning>cycling breakfast>oat_sacks",
                "breakfast",
                [
                    ("In March, Marco's doctor warned him that his cholesterol was too high.", "warning"),
                    ("Marco has cycled to work every day since March.", "cycling"),
                ],
                [
                    ("Marco switched his breakfast from bacon to oat porridge.", "breakfast"),
                    ("Marco buys oat porridge in big sacks from the bulk shop.", "oat_sacks"),
                ],
            ),
            V(
                "sports",
                "Sofia is running the Rome marathon in April. She trains 60 kilometres a week and has booked a "
                "hotel two streets from the start line, so on race morning she can simply walk to the start.",
                "Sofia had booked a hotel near the airport",
                "Sofia booked a hotel two streets from the start line",
                "Sofia is running the Rome marathon in April. She trains 60 kilometres a week and has booked a "
                "hotel near the airport, so on race morning she will need a taxi or train to reach the start.",
                "marathon>hotel marathon>training hotel>walk_to_start",
                "hotel",
                [
                    ("Sofia is running the Rome marathon in April.", "marathon"),
                    ("Sofia trains 60 kilometres a week.", "training"),
                ],
                [
                    ("Sofia booked a hotel two streets from the start line.", "hotel"),
                    ("Sofia can walk to the start on race morning.", "walk_to_start"),
                ],
            ),
        ],
    },
    # 15 ─ hybrid: a condition prompts a precaution*; both set the physical outcome; the
    #      precaution has a side effect of its own
    {
        "graph_type": "hybrid",
        "failure_modes": ["physical_quantitative", "stale_consequence"],
        "tags": [],
        "variations": [
            V(
                "travel",
                "Because it was pouring with rain, Max took the bus to work instead of cycling. He read two "
                "chapters of his novel on the way and arrived perfectly dry.",
                "Max had cycled to work anyway",
                "Max took the bus to work",
                "Although it was pouring with rain, Max cycled to work as usual. With both hands on the "
                "handlebars there was no reading on the way, and he arrived soaked to the skin.",
                "rain>transport rain>arrived_dry transport>arrived_dry transport>reading",
                "transport",
                [("It was pouring with rain that morning.", "rain")],
                [("Max took the bus to work.", "transport"), ("Max arrived at work perfectly dry.", "arrived_dry")],
            ),
            V(
                "cooking",
                "Ana lives in a mountain town where water boils at about 92 degrees, so she cooked the black "
                "beans in a pressure cooker. Its hissing valve woke the baby, but the beans were soft in forty "
                "minutes.",
                "Ana had simmered the beans in an open pot",
                "Ana cooked the black beans in a pressure cooker",
                "Ana lives in a mountain town where water boils at about 92 degrees, but she simmered the black "
                "beans in an open pot. The baby slept on undisturbed, while the beans needed hours to turn "
                "soft.",
                "altitude>cooker altitude>soft_beans cooker>soft_beans cooker>baby_woke",
                "cooker",
                [
                    ("Ana lives in a mountain town where water boils at about 92 degrees.", "altitude"),
                ],
                [
                    ("Ana cooked the black beans in a pressure cooker.", "cooker"),
                    ("The beans were soft in forty minutes.", "soft_beans"),
                ],
            ),
            V(
                "nature",
                "A hard frost was forecast for Tuesday night, so Hal covered his tomato plants with garden "
                "fleece, using up his last roll. The frost came and whitened the lawn, but the tomatoes under "
                "the fleece were unharmed.",
                "Hal had left his tomato plants uncovered",
                "Hal covered his tomato plants with garden fleece",
                "A hard frost was forecast for Tuesday night, but Hal left his tomato plants uncovered, so his "
                "last roll of fleece stayed in the shed. The frost came and whitened the lawn, and it blackened "
                "the tomato leaves.",
                "frost>fleece frost>tomatoes_ok fleece>tomatoes_ok fleece>fleece_used",
                "fleece",
                [
                    ("A hard frost fell on Tuesday night and whitened the lawn.", "frost"),
                ],
                [
                    ("Hal covered his tomato plants with garden fleece.", "fleece"),
                    ("Hal's tomato plants came through the frost unharmed.", "tomatoes_ok"),
                ],
            ),
        ],
    },
    # 16 ─ chain from a past history: history → choice* → time it takes → what gets dropped
    {
        "graph_type": "chain",
        "failure_modes": ["history_rewritten", "stale_consequence"],
        "tags": [],
        "variations": [
            V(
                "cooking",
                "Claire trained as a pastry chef in Lyon, so for Sunday's brunch she made croissants from "
                "scratch. They took her six hours, which left her no time to iron the tablecloth, and the table "
                "looked rumpled.",
                "Claire had bought the croissants from the corner bakery",
                "Claire made croissants from scratch",
                "Claire trained as a pastry chef in Lyon, but for Sunday's brunch she bought the croissants "
                "from the corner bakery. With the morning free, she ironed the tablecloth, and the table looked "
                "crisp.",
                "pastry_training>homemade homemade>six_hours six_hours>unironed",
                "homemade",
                [("Claire trained as a pastry chef in Lyon.", "pastry_training")],
                [
                    ("Claire spent six hours making croissants from scratch.", "homemade"),
                    ("Claire had no time to iron the tablecloth.", "unironed"),
                ],
            ),
            V(
                "sports",
                "Because he had played college basketball, Dmitri agreed to coach his daughter's under-10 "
                "team. The practices took up every Saturday morning, so he dropped out of his weekend golf "
                "league.",
                "Dmitri had turned down the coaching job",
                "Dmitri agreed to coach his daughter's under-10 team",
                "Dmitri had played college basketball, but he turned down the chance to coach his daughter's "
                "under-10 team. His Saturday mornings stayed free, so he kept playing in his weekend golf "
                "league.",
                "college_basketball>coaching coaching>busy_saturdays busy_saturdays>quit_golf",
                "coaching",
                [("Dmitri played college basketball.", "college_basketball")],
                [
                    ("Dmitri coached his daughter's under-10 basketball team.", "coaching"),
                    ("Dmitri dropped out of his weekend golf league.", "quit_golf"),
                ],
            ),
            V(
                "school",
                "Oskar's older sister had failed the same chemistry course, so he hired a tutor for the term. "
                "The tutoring sessions filled his Tuesday evenings, and he quit the chess club, which met on "
                "Tuesdays.",
                "Oskar had studied on his own without a tutor",
                "Oskar hired a tutor for the term",
                "Oskar's older sister had failed the same chemistry course, but he studied on his own without "
                "a tutor. His Tuesday evenings stayed free, so he carried on at the chess club.",
                "sister_failed>tutor tutor>busy_tuesdays busy_tuesdays>quit_chess",
                "tutor",
                [("Oskar's older sister had failed the same chemistry course.", "sister_failed")],
                [("Oskar hired a tutor for the term.", "tutor"), ("Oskar quit the chess club.", "quit_chess")],
            ),
        ],
    },
    # 17 ─ numeric collider: two amounts (one intervened) add up; a fixed rule turns the total
    #      into a result
    {
        "graph_type": "collider",
        "failure_modes": ["physical_quantitative"],
        "tags": ["numeric"],
        "variations": [
            V(
                "daily_life",
                "Uma and Rex went to the cinema. Uma paid $30 for the two tickets and Rex paid $12 for popcorn, "
                "so the evening cost $42, which they split evenly at $21 each.",
                "Uma had used a discount code and paid only $20 for the tickets",
                "Uma paid $30 for the two tickets",
                "Uma and Rex went to the cinema. Uma used a discount code and paid only $20 for the two "
                "tickets, and Rex paid $12 for popcorn, so the evening cost $32, which they split evenly at $16 "
                "each.",
                "tickets>total popcorn>total total>share split_rule>share",
                "tickets",
                [
                    ("Rex paid $12 for popcorn.", "popcorn"),
                    ("Uma and Rex split the cost of the evening evenly.", "split_rule"),
                ],
                [
                    ("Uma paid $30 for the two tickets.", "tickets"),
                    ("The evening cost $42 in total.", "total"),
                    ("Uma and Rex each paid $21.", "share"),
                ],
            ),
            V(
                "cooking",
                "For the winter fair, Bea made soup with 3 litres of stock and Tim stirred in 1 litre of cream. "
                "The 4 litres of soup filled eight half-litre jars.",
                "Bea had used only 2 litres of stock",
                "Bea used 3 litres of stock",
                "For the winter fair, Bea made soup with 2 litres of stock and Tim stirred in 1 litre of cream. "
                "The 3 litres of soup filled six half-litre jars.",
                "stock>volume cream>volume volume>jars jar_size>jars",
                "stock",
                [("Tim stirred in 1 litre of cream.", "cream"), ("Each jar holds half a litre.", "jar_size")],
                [
                    ("Bea used 3 litres of stock.", "stock"),
                    ("The soup came to 4 litres.", "volume"),
                    ("The soup filled eight jars.", "jars"),
                ],
            ),
            V(
                "sports",
                "On the charity cycling tour, the club rode 60 kilometres on Saturday and 45 on Sunday, 105 "
                "kilometres in all. Their sponsors gave $1 per kilometre, so the ride raised $105.",
                "the club had ridden 80 kilometres on Saturday",
                "the club rode 60 kilometres on Saturday",
                "On the charity cycling tour, the club rode 80 kilometres on Saturday and 45 on Sunday, 125 "
                "kilometres in all. Their sponsors gave $1 per kilometre, so the ride raised $125.",
                "saturday_km>total_km sunday_km>total_km total_km>raised rate>raised",
                "saturday_km",
                [
                    ("The club rode 45 kilometres on Sunday.", "sunday_km"),
                    ("The sponsors gave $1 per kilometre.", "rate"),
                ],
                [
                    ("The club rode 60 kilometres on Saturday.", "saturday_km"),
                    ("The club rode 105 kilometres in all.", "total_km"),
                    ("The ride raised $105.", "raised"),
                ],
            ),
        ],
    },
    # 18 ─ numeric diamond: one plan → two purchases (one intervened) → their total
    {
        "graph_type": "diamond",
        "failure_modes": ["physical_quantitative", "unsupported_connector"],
        "tags": ["numeric"],
        "variations": [
            V(
                "cooking",
                "Pilar hosted a dinner party for eight. She bought 2 kg of salmon at $25 a kilogram and four "
                "bottles of wine at $10 each, so her shopping came to $90.",
                "Pilar had bought 3 kg of salmon",
                "Pilar bought 2 kg of salmon",
                "Pilar hosted a dinner party for eight. She bought 3 kg of salmon at $25 a kilogram and four "
                "bottles of wine at $10 each, so her shopping came to $115.",
                "party>salmon party>wine salmon>bill wine>bill",
                "salmon",
                [
                    ("Pilar hosted a dinner party for eight.", "party"),
                    ("Pilar bought four bottles of wine at $10 each.", "wine"),
                    ("Salmon cost $25 a kilogram.", "bill", INV),
                ],
                [("Pilar bought 2 kg of salmon.", "salmon"), ("Pilar's shopping came to $90.", "bill")],
            ),
            V(
                "school",
                "All 120 students in Year 8 went on the science museum trip. The school hired three coaches at "
                "$200 each and ordered 120 packed lunches at $5 each, so the trip cost $1,200.",
                "the school had hired four coaches",
                "the school hired three coaches",
                "All 120 students in Year 8 went on the science museum trip. The school hired four coaches at "
                "$200 each and ordered 120 packed lunches at $5 each, so the trip cost $1,400.",
                "trip>coaches trip>lunches coaches>trip_cost lunches>trip_cost",
                "coaches",
                [
                    ("120 students went on the science museum trip.", "trip"),
                    ("The school ordered 120 packed lunches at $5 each.", "lunches"),
                    ("Each coach cost $200.", "trip_cost", INV),
                ],
                [("The school hired three coaches.", "coaches"), ("The trip cost $1,200 in total.", "trip_cost")],
            ),
            V(
                "work",
                "Lars was furnishing a new office for ten staff. He bought ten desks at $150 each and ten "
                "laptops at $800 each, so the setup cost $9,500.",
                "Lars had bought ten standing desks at $400 each",
                "Lars bought ten desks at $150 each",
                "Lars was furnishing a new office for ten staff. He bought ten standing desks at $400 each and "
                "ten laptops at $800 each, so the setup cost $12,000.",
                "new_office>desks new_office>laptops desks>setup_cost laptops>setup_cost",
                "desks",
                [
                    ("Lars was furnishing a new office for ten staff.", "new_office"),
                    ("Lars bought ten laptops at $800 each.", "laptops"),
                ],
                [("Lars bought ten desks at $150 each.", "desks"), ("The office setup cost $9,500.", "setup_cost")],
            ),
        ],
    },
    # 19 ─ correlated signs of a hidden common cause: A* <-> B, A* → C
    {
        "graph_type": "correlated",
        "failure_modes": ["background_rationalised", "unsupported_connector"],
        "tags": ["latent"],
        "variations": [
            V(
                "nature",
                "On Thursday evening the swallows swooped low over the village pond, and Mrs. Ortiz's old knee "
                "injury began to ache. Taking the low-flying swallows as a warning, farmer Bram hurried to "
                "bring his hay in before dark.",
                "the swallows had been flying high above the rooftops",
                "the swallows swooped low over the village pond",
                "On Thursday evening the swallows flew high above the rooftops, and Mrs. Ortiz's old knee "
                "injury began to ache. Seeing no warning in the sky, farmer Bram left his hay out in the field.",
                "swallows_low<>knee_ache swallows_low>hay_in",
                "swallows_low",
                [("Mrs. Ortiz's old knee injury began to ache on Thursday evening.", "knee_ache")],
                [
                    ("The swallows swooped low over the village pond.", "swallows_low"),
                    ("Farmer Bram hurried to bring his hay in before dark.", "hay_in"),
                ],
            ),
            V(
                "finance",
                "On Monday, shares in the umbrella maker Brolly rose 8%, and the rain-boot maker Puddle Co. "
                "posted its best sales week of the year. Ines, who owns Brolly shares, used her gain to pay off "
                "her credit card.",
                "Brolly's shares had fallen 3% on Monday",
                "Brolly's shares rose 8% on Monday",
                "On Monday, shares in the umbrella maker Brolly fell 3%, while the rain-boot maker Puddle Co. "
                "posted its best sales week of the year. Ines, who owns Brolly shares, had no gain to put "
                "towards her credit card.",
                "brolly_shares<>puddle_sales brolly_shares>card_paid",
                "brolly_shares",
                [("Puddle Co. posted its best sales week of the year.", "puddle_sales")],
                [
                    ("Brolly's shares rose 8% on Monday.", "brolly_shares"),
                    ("Ines used her gain on Brolly shares to pay off her credit card.", "card_paid"),
                ],
            ),
            V(
                "science",
                "In Dr. Amin's greenhouse trial, the tomato plants in bay 3 grew the tallest and also bore the "
                "reddest fruit. Because they grew so tall, the technician had to raise the bay 3 trellis by half "
                "a metre.",
                "a technician had pinched out the tops of the bay 3 plants at one metre",
                "the tomato plants in bay 3 grew the tallest",
                "In Dr. Amin's greenhouse trial, a technician pinched out the tops of the bay 3 tomato plants at "
                "one metre, so they were no longer the tallest, though they still bore the reddest fruit. The "
                "bay 3 trellis stayed at its usual height.",
                "plant_height<>fruit_colour plant_height>trellis_raised",
                "plant_height",
                [("The tomato plants in bay 3 bore the reddest fruit.", "fruit_colour")],
                [
                    ("The tomato plants in bay 3 grew the tallest.", "plant_height"),
                    ("The technician raised the bay 3 trellis by half a metre.", "trellis_raised"),
                ],
            ),
        ],
    },
    # 20 ─ hybrid with a latent passion: passion → gear, passion → place*; gear and place
    #      together → the activity; the place has a side effect
    {
        "graph_type": "hybrid",
        "failure_modes": ["unchanged_reason", "spatial"],
        "tags": ["latent"],
        "variations": [
            V(
                "travel",
                "For her week in Seville, Wen packed her swimsuit and booked a hotel with a rooftop pool, paying "
                "€30 a night more than the hostel next door. She swam laps in the pool every morning at sunrise.",
                "Wen had booked a hotel without a pool",
                "Wen booked a hotel with a rooftop pool",
                "For her week in Seville, Wen packed her swimsuit but booked a hotel without a pool, saving "
                "€30 a night. Every morning at sunrise she walked to a public pool by the river to swim laps "
                "there instead.",
                "loves_swimming>swimsuit loves_swimming>pool_hotel swimsuit>hotel_laps pool_hotel>hotel_laps "
                "pool_hotel>extra_cost",
                "pool_hotel",
                [("Wen packed her swimsuit for her week in Seville.", "swimsuit")],
                [
                    ("Wen booked a hotel with a rooftop pool.", "pool_hotel"),
                    ("Wen swam laps in her hotel's pool every morning at sunrise.", "hotel_laps"),
                ],
            ),
            V(
                "nature",
                "For his week off, Teo packed his binoculars and rented a cabin beside the marsh, a forty-minute "
                "drive from the nearest shop. Each dawn he counted herons from the cabin porch.",
                "Teo had rented a flat in the town centre",
                "Teo rented a cabin beside the marsh",
                "For his week off, Teo packed his binoculars but rented a flat in the town centre, a short walk "
                "from the shops. Each dawn he drove out to the marsh to count herons from the footpath.",
                "loves_birds>binoculars loves_birds>marsh_cabin binoculars>porch_herons marsh_cabin>porch_herons "
                "marsh_cabin>long_shop_drive",
                "marsh_cabin",
                [("Teo packed his binoculars for his week off.", "binoculars")],
                [
                    ("Teo rented a cabin beside the marsh.", "marsh_cabin"),
                    ("Each dawn Teo counted herons from his cabin porch.", "porch_herons"),
                ],
            ),
            V(
                "daily_life",
                "This spring Ruth bought a packet of sunflower seeds and rented an allotment plot beside the "
                "canal, which she reaches along the towpath. By August her tall sunflowers lined the water's "
                "edge, and passing boaters stopped to photograph them.",
                "Ruth had rented an allotment plot behind the primary school",
                "Ruth rented an allotment plot beside the canal",
                "This spring Ruth bought a packet of sunflower seeds and rented an allotment plot behind the "
                "primary school. By August her tall sunflowers lined the school fence, where children on their "
                "way home stopped to admire them.",
                "loves_gardening>seeds loves_gardening>canal_plot seeds>boater_photos canal_plot>boater_photos "
                "canal_plot>towpath_route",
                "canal_plot",
                [("Ruth bought a packet of sunflower seeds this spring.", "seeds")],
                [
                    ("Ruth rented an allotment plot beside the canal.", "canal_plot"),
                    ("Passing boaters stopped to photograph Ruth's sunflowers.", "boater_photos"),
                ],
            ),
        ],
    },
]
